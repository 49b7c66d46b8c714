"""tandem.dataset APIs of MindSpore's dataset tutorials (sampler, eager, augment,
python_objects), checked against MindSpore 2.x's documented semantics: samplers, filter /
concat / zip / save / per_batch_map / sync_wait, Python dict columns, and the transforms
RandomApply, RandomChoice, RandomSelectSubpolicy, Fill, OneHot and the numpy vision ops
(PIL is the oracle where it implements the same algorithm)."""
import os
import struct
import warnings

import numpy as np
import pytest

import tandem
import tandem.dataset as ds
from tandem.dataset import _config, config
from tandem.dataset import transforms as tr
from tandem.dataset import vision
from tandem.mindrecord import FileWriter

T = tandem


@pytest.fixture()
def seed():
    """dataset.config.set_seed for one test."""
    def set_(s):
        config.set_seed(s)
    yield set_
    _config._seed = None


def xs(d, col=0):
    return [int(r[col]) for r in d.create_tuple_iterator(output_numpy=True)]


def epochs(d, n=2, col=0):
    it = d.create_tuple_iterator(num_epochs=n, output_numpy=True)
    return [[int(r[col]) for r in it] for _ in range(n)]


def slices(n=12, **kw):
    return ds.NumpySlicesDataset(np.arange(n), column_names=["x"], **kw)


# ---- samplers -------------------------------------------------------------------------------
def test_deterministic_samplers_read_exact_rows():
    assert xs(slices(sampler=ds.SequentialSampler())) == list(range(12))
    assert xs(slices(sampler=ds.SequentialSampler(start_index=3, num_samples=4))) == [3, 4, 5, 6]
    assert xs(slices(sampler=ds.SequentialSampler(10))) == [10, 11]
    assert xs(slices(sampler=ds.SubsetSampler([3, 1, 3, 11]))) == [3, 1, 3, 11]
    assert xs(slices(sampler=ds.SubsetSampler([5, 6, 7], num_samples=2))) == [5, 6]
    # the tutorial's shards: 12 rows over 4 shards, shard k reads k, k + 4, k + 8
    for k in range(4):
        d = slices(sampler=ds.DistributedSampler(num_shards=4, shard_id=k, shuffle=False))
        assert xs(d) == [k, k + 4, k + 8] and d.get_dataset_size() == 3
    # uneven: ceil(10 / 4) = 3 rows each, the last ones wrapping to the start
    assert [xs(slices(10, sampler=ds.DistributedSampler(4, k, shuffle=False)))
            for k in range(4)] == [[0, 4, 8], [1, 5, 9], [2, 6, 0], [3, 7, 1]]
    # an offset (a concatenation's sampler): shard k reads k - offset, k - offset + 4, ...
    assert [xs(slices(10, sampler=ds.DistributedSampler(4, k, shuffle=False, offset=1)))
            for k in range(4)] == [[3, 7], [0, 4, 8], [1, 5, 9], [2, 6]]
    assert xs(slices(sampler=ds.DistributedSampler(4, 1, shuffle=False, num_samples=2))) == [1, 5]
    # a list of indices is a SubsetSampler, an int one index, an iterable an IterSampler
    assert xs(slices(sampler=[7, 2])) == [7, 2] and xs(slices(sampler=4)) == [4]
    assert xs(slices(sampler=range(9, 0, -4))) == [9, 5, 1]


def test_distributed_sampler_shuffles_one_order_for_all_shards(seed):
    shards = [slices(sampler=ds.DistributedSampler(3, k)) for k in range(3)]
    per_epoch = [epochs(d) for d in shards]
    for e in range(2):
        flat = [v for s in per_epoch for v in s[e]]
        assert sorted(flat) == list(range(12))  # a partition of one permutation
    assert per_epoch[0][0] != per_epoch[0][1]  # reshuffled every epoch
    # the same order in every process: a fixed seed, or dataset.config.set_seed's
    assert epochs(slices(sampler=ds.DistributedSampler(3, 1))) == per_epoch[1]
    seed(11)
    a = xs(slices(sampler=ds.DistributedSampler(2, 0)))
    assert a == xs(slices(sampler=ds.DistributedSampler(2, 0))) and len(a) == 6


def test_random_samplers_permute_and_follow_the_seed(seed):
    e1, e2 = epochs(slices(sampler=ds.RandomSampler()))
    assert sorted(e1) == sorted(e2) == list(range(12)) and e1 != e2
    d = slices(sampler=ds.RandomSampler(num_samples=5))
    assert len(set(xs(d))) == 5 and d.get_dataset_size() == 5
    # with replacement: num_samples draws (capped at the rows, as MindSpore's C++ does)
    d = slices(sampler=ds.RandomSampler(replacement=True, num_samples=200))
    assert d.get_dataset_size() == 12 and len(xs(d)) == 12
    draws = [v for _ in range(30) for v in xs(slices(sampler=ds.RandomSampler(True)))]
    assert set(draws) <= set(range(12)) and len(set(draws)) == 12
    assert any(len(set(xs(slices(sampler=ds.RandomSampler(True))))) < 12 for _ in range(5))
    # SubsetRandomSampler: a permutation of the first num_samples indices, new every epoch
    es = epochs(slices(sampler=ds.SubsetRandomSampler([9, 8, 7, 6, 5, 4], num_samples=4)), 3)
    assert all(sorted(e) == [6, 7, 8, 9] for e in es) and len({tuple(e) for e in es}) > 1
    # seeded: the same draws every run; tandem.manual_seed fixes them too
    for make in (lambda: ds.RandomSampler(), lambda: ds.RandomSampler(True, 8),
                 lambda: ds.SubsetRandomSampler(range(12)),
                 lambda: ds.WeightedRandomSampler([1, 2, 3, 4], 8)):
        seed(1234)
        a = epochs(slices(sampler=make()))
        assert a == epochs(slices(sampler=make()))
        _config._seed = None
        T.manual_seed(3)
        b = epochs(slices(sampler=make()))
        T.manual_seed(3)
        assert b == epochs(slices(sampler=make()))


def test_weighted_random_sampler():
    w = [0.8, 0.5, 0, 0]  # the tutorial's: only the first two rows can be drawn
    d = slices(10, sampler=ds.WeightedRandomSampler(w + [0] * 6, num_samples=6))
    assert d.get_dataset_size() == 6 and set(xs(d)) <= {0, 1}
    draws = np.array([v for _ in range(40) for v in xs(slices(
        sampler=ds.WeightedRandomSampler([1, 3], num_samples=12)))])
    assert abs((draws == 1).mean() - 0.75) < 0.06  # 480 draws, p = 3/4
    # without replacement: distinct rows, zero weights last
    d = slices(sampler=ds.WeightedRandomSampler([1, 0, 2, 5], 3, replacement=False))
    assert sorted(xs(d)) == [0, 2, 3]
    assert sorted(xs(slices(sampler=ds.WeightedRandomSampler([1, 0, 2], 3, False)))) == [0, 1, 2]
    with pytest.raises(RuntimeError, match="num_samples"):
        xs(slices(sampler=ds.WeightedRandomSampler([1, 2], 3, replacement=False)))
    with pytest.raises(RuntimeError, match="at most one weight per row"):
        xs(slices(3, sampler=ds.WeightedRandomSampler([1, 1, 1, 1])))


def test_pk_sampler():
    labels = np.array([2, 0, 1, 0, 2, 1, 0, 3, 2, 1, 3, 3])
    d = ds.NumpySlicesDataset((np.arange(12), labels), ["x", "label"],
                              sampler=ds.PKSampler(2))
    rows = [(int(x), int(y)) for x, y in d.create_tuple_iterator(output_numpy=True)]
    assert [y for _, y in rows] == [0, 0, 1, 1, 2, 2, 3, 3] and d.get_dataset_size() == 8
    assert all(labels[x] == y for x, y in rows)
    d = ds.NumpySlicesDataset((np.arange(12), labels), ["x", "label"],
                              sampler=ds.PKSampler(3, num_samples=5))
    assert [int(r[1]) for r in d.create_tuple_iterator(output_numpy=True)] == [0, 0, 0, 1, 1]
    # one row per class: exact; shuffle permutes the classes every epoch
    d = ds.NumpySlicesDataset((np.arange(4), np.array([5, 7, 6, 4])), ["x", "c"],
                              sampler=ds.PKSampler(1, shuffle=True, class_column="c"))
    es = epochs(d, 4)
    assert all(sorted(e) == [0, 1, 2, 3] for e in es) and len({tuple(e) for e in es}) > 1
    d = ds.NumpySlicesDataset((np.arange(4), np.array([5, 7, 6, 4])), ["x", "c"],
                              sampler=ds.PKSampler(2, class_column="c"))
    assert xs(d) == [3, 3, 0, 0, 2, 2, 1, 1]
    with pytest.raises(NotImplementedError, match="num_class"):
        ds.PKSampler(2, num_class=3)
    with pytest.raises(ValueError, match="class_column 'label'"):
        xs(slices(sampler=ds.PKSampler(1)))


def test_user_samplers():
    class MySampler(ds.Sampler):  # the tutorial's __iter__ sampler
        def __iter__(self):
            for i in range(0, 10, 2):
                yield i
    letters = list("abcdefghijkl")
    d = ds.NumpySlicesDataset(letters, column_names=["data"], sampler=MySampler())
    assert [str(r[0]) for r in d.create_tuple_iterator(output_numpy=True)] == list("acegi")

    class GetItemSampler:  # the tutorial's __getitem__ sampler (more indices than rows)
        def __init__(self):
            self.index_ids = [3, 4, 3, 2, 0, 11, 5, 5, 5, 9, 1, 11, 11, 11, 11, 8]

        def __getitem__(self, index):
            return self.index_ids[index]

        def __len__(self):
            return len(self.index_ids)
    d = ds.NumpySlicesDataset(letters, column_names=["data"], sampler=GetItemSampler())
    assert "".join(str(r[0]) for r in d) == "dedcalfffjblllli"
    assert d.get_dataset_size() == 16

    class Reverse(ds.Sampler):  # dataset_size is set before iterating; reset per epoch
        resets = 0

        def __iter__(self):
            return iter(range(self.dataset_size - 1, -1, -1))

        def reset(self):
            Reverse.resets += 1
    s = Reverse(num_samples=4)
    assert epochs(slices(5, sampler=s), 3) == [[4, 3, 2, 1]] * 3 and Reverse.resets == 2
    assert s.get_num_samples() == 4
    d = slices(sampler=ds.IterSampler([0, 1]), num_samples=None)
    assert xs(d) == [0, 1]
    assert xs(slices(sampler=iter_object(), num_samples=2)) == [9, 8]

    class Bad(ds.Sampler):
        def __iter__(self):
            yield 99
    with pytest.raises(IndexError, match="99"):
        xs(slices(sampler=Bad()))


def iter_object():
    class It:
        def __iter__(self):
            return iter([9, 8, 7])
    return It()


def test_child_sampler_and_num_samples():
    parent = ds.SequentialSampler(start_index=1, num_samples=3)
    parent.add_child(ds.SubsetSampler([9, 8, 7, 6, 5]))
    assert xs(slices(sampler=parent)) == [8, 7, 6]
    assert parent.get_num_samples() == 3 and parent.get_child() is not None
    with pytest.raises(RuntimeError, match="already has a child"):
        parent.add_child(ds.RandomSampler())
    r = ds.RandomSampler()
    r.add_child(ds.DistributedSampler(2, 1, shuffle=False))
    assert sorted(xs(slices(sampler=r))) == [1, 3, 5, 7, 9, 11]
    assert r.is_shuffled() and r.is_sharded()
    assert not ds.SequentialSampler().is_shuffled() and ds.PKSampler(1, shuffle=True).is_shuffled()
    assert ds.RandomSampler(num_samples=3).get_num_samples() == 3
    assert ds.SequentialSampler().get_num_samples() is None


def test_samplers_on_every_source(tmp_path):
    images = np.arange(10 * 28 * 28, dtype=np.uint32).astype(np.uint8).reshape(10, 28, 28)
    labels = np.array([1, 0, 1, 2, 0, 1, 2, 2, 0, 1], np.uint8)
    d = tmp_path / "mnist"
    d.mkdir()
    (d / "train-images-idx3-ubyte").write_bytes(struct.pack(">IIII", 2051, 10, 28, 28)
                                                + images.tobytes())
    (d / "train-labels-idx1-ubyte").write_bytes(struct.pack(">II", 2049, 10) + labels.tobytes())
    m = ds.MnistDataset(str(d), sampler=ds.SubsetSampler([4, 2]))
    got = list(m.create_tuple_iterator(output_numpy=True))
    assert [int(lab) for _, lab in got] == [0, 1] and (got[0][0][..., 0] == images[4]).all()
    pk = ds.MnistDataset(str(d), sampler=ds.PKSampler(1))
    assert [int(r[1]) for r in pk.create_tuple_iterator(output_numpy=True)] == [0, 1, 2]
    fm = ds.FashionMnistDataset(str(d), sampler=ds.SequentialSampler(8))
    assert fm.get_dataset_size() == 2

    class RA:  # a random-access GeneratorDataset source goes through the Loader
        def __getitem__(self, i):
            return np.array(i * 10), np.array([i, i])

        def __len__(self):
            return 7
    g = ds.GeneratorDataset(RA(), ["a", "b"], sampler=ds.SequentialSampler(2, 3))
    assert xs(g) == [20, 30, 40]
    b = ds.GeneratorDataset(RA(), ["a", "b"], sampler=[6, 5, 4, 0]).batch(3)
    assert [r[0].tolist() for r in b.create_tuple_iterator(output_numpy=True)] == \
        [[60, 50, 40], [0]]
    path = str(tmp_path / "m.mindrecord")
    w = FileWriter(path)
    w.add_schema({"id": {"type": "int64"}, "cls": {"type": "int32"}})
    w.write_raw_data([{"id": i, "cls": i % 3} for i in range(9)])
    w.commit()
    assert xs(ds.MindDataset(path, sampler=ds.SequentialSampler(2, 3)), 1) == [2, 3, 4]
    assert xs(ds.MindDataset(path, sampler=ds.DistributedSampler(3, 2, False)), 1) == [2, 5, 8]
    md = ds.MindDataset(path, columns_list=["id"], sampler=ds.PKSampler(2, class_column="cls"))
    assert [i % 3 for i in xs(md)] == [0, 0, 1, 1, 2, 2]


def test_sampler_argument_errors():
    with pytest.raises(ValueError, match="mutually exclusive"):
        slices(sampler=ds.RandomSampler(), shuffle=False)
    with pytest.raises(ValueError, match="mutually exclusive"):
        slices(sampler=[1, 2], num_shards=2, shard_id=0)
    with pytest.raises(ValueError, match="num_samples"):
        slices(sampler=ds.SequentialSampler(), num_samples=3)
    with pytest.raises(ValueError, match="random-access"):
        ds.GeneratorDataset(lambda: iter(range(3)), ["x"], sampler=ds.SequentialSampler())
    with pytest.raises(TypeError, match="unsupported sampler"):
        slices(sampler="abc")
    with pytest.raises(TypeError, match="replacement"):
        ds.RandomSampler(replacement=1)
    with pytest.raises(TypeError, match="num_samples"):
        ds.RandomSampler(num_samples=2.5)
    with pytest.raises(ValueError, match="num_samples"):
        ds.SequentialSampler(num_samples=-1)
    with pytest.raises(ValueError, match="start_index"):
        ds.SequentialSampler(start_index=-2)
    with pytest.raises(ValueError, match="start_index 12"):
        xs(slices(sampler=ds.SequentialSampler(12)))
    with pytest.raises(TypeError, match="indices must be ints"):
        ds.SubsetSampler([1, "2"])
    with pytest.raises(IndexError, match="12"):
        xs(slices(sampler=ds.SubsetRandomSampler([0, 12])))
    with pytest.raises(RuntimeError, match="shard_id"):
        ds.DistributedSampler(2, 2)
    with pytest.raises(RuntimeError, match="num_shards"):
        ds.DistributedSampler(0, 0)
    with pytest.raises(RuntimeError, match="offset"):
        ds.DistributedSampler(2, 0, offset=3)
    with pytest.raises(TypeError, match="shuffle"):
        ds.DistributedSampler(2, 0, shuffle=None)
    with pytest.raises(RuntimeError, match="not all zero"):
        ds.WeightedRandomSampler([0, 0])
    with pytest.raises(RuntimeError, match="non-negative"):
        ds.WeightedRandomSampler([1, -1])
    with pytest.raises(TypeError, match="numbers"):
        ds.WeightedRandomSampler([1, "a"])
    with pytest.raises(RuntimeError, match="num_val"):
        ds.PKSampler(0)


# ---- dataset operations ---------------------------------------------------------------------
class _Six:
    def __getitem__(self, i):
        return [1, 2, 3, 4, 5, 6][i]

    def __len__(self):
        return 6


def test_filter():
    d = ds.GeneratorDataset(_Six(), column_names=["data"], shuffle=False)
    f = d.filter(lambda x: x < 4, input_columns=["data"])  # the tutorial's
    assert [int(r[0]) for r in f] == [1, 2, 3] and f.get_dataset_size() == 3
    two = ds.NumpySlicesDataset((np.arange(8), np.arange(8) * 10), ["a", "b"], shuffle=False)
    f = two.filter(lambda a, b: a % 2 == 0 and b > 20)
    assert xs(f) == [4, 6] and xs(f, 1) == [40, 60]
    batched = two.filter(lambda b: b >= 50, "b").batch(2)
    assert [r[0].tolist() for r in batched.create_tuple_iterator(output_numpy=True)] == \
        [[5, 6], [7]]
    with pytest.raises(ValueError, match="'c'"):
        two.filter(lambda c: True, "c")
    with pytest.raises(TypeError, match="callable"):
        two.filter(3)


def test_concat_and_zip():
    a = ds.NumpySlicesDataset([1, 2, 3], ["c"], shuffle=False)
    b = ds.NumpySlicesDataset([4, 5], ["c"], shuffle=False)
    c = a.concat(b)
    assert xs(c) == [1, 2, 3, 4, 5] and c.get_dataset_size() == 5
    assert xs(a + b + a) == [1, 2, 3, 4, 5, 1, 2, 3]
    assert xs(a.concat([b, b])) == [1, 2, 3, 4, 5, 4, 5]
    assert epochs(c) == [[1, 2, 3, 4, 5]] * 2
    assert [r.tolist() for r in (r[0] for r in c.batch(2).create_tuple_iterator(
        output_numpy=True))] == [[1, 2], [3, 4], [5]]
    shuffled = epochs(ds.NumpySlicesDataset([1, 2, 3], ["c"]) + b)  # each part shuffles
    assert all(sorted(e[:3]) == [1, 2, 3] and e[3:] == [4, 5] for e in shuffled)
    with pytest.raises(ValueError, match="same columns"):
        a.concat(ds.NumpySlicesDataset([1], ["d"]))
    with pytest.raises(TypeError, match="Dataset"):
        a.concat([1])
    z = a.zip(ds.NumpySlicesDataset([7, 8, 9, 10], ["d"], shuffle=False))
    assert z.get_col_names() == ["c", "d"] and z.get_dataset_size() == 3
    assert [(int(x), int(y)) for x, y in z.create_tuple_iterator(output_numpy=True)] == \
        [(1, 7), (2, 8), (3, 9)]
    with pytest.raises(ValueError, match="differ"):
        a.zip(b)


def test_per_batch_map():
    def gen():
        yield from range(7)

    def fn(col, info):
        return ([x * 10 + info.get_batch_num() for x in col],)
    d = ds.GeneratorDataset(gen, ["col1"]).batch(3, per_batch_map=fn)
    assert [r[0].tolist() for r in d.create_tuple_iterator(output_numpy=True)] == \
        [[0, 10, 20], [31, 41, 51], [62]]
    src = ds.NumpySlicesDataset((np.arange(4), np.arange(4) + 100), ["a", "b"], shuffle=False)

    def split(a, info):  # one input column into two outputs, in its place
        return np.stack(a) * 2, [np.array([x, -x]) for x in a]
    d = src.batch(2, drop_remainder=True, per_batch_map=split, input_columns=["a"],
                  output_columns=["twice", "pair"])
    assert d.get_col_names() == ["twice", "pair", "b"] and d.get_dataset_size() == 2
    rows = [[v.tolist() for v in r] for r in d.create_tuple_iterator(output_numpy=True)]
    assert rows == [[[0, 2], [[0, 0], [1, -1]], [100, 101]],
                    [[4, 6], [[2, -2], [3, -3]], [102, 103]]]
    seen = []
    e = src.batch(2, per_batch_map=lambda a, b, info: (seen.append(info.get_epoch_num()) or a, b))
    it = e.create_tuple_iterator(num_epochs=2)
    assert [len(list(it)) for _ in range(2)] == [2, 2] and seen == [0, 0, 1, 1]
    with pytest.raises(TypeError, match="tuple of 1"):
        list(ds.GeneratorDataset(gen, ["col1"]).batch(3, per_batch_map=lambda c, i: 5))
    with pytest.raises(ValueError, match="per_batch_map"):
        src.batch(2, input_columns=["a"])


def test_save_round_trips_through_minddataset(tmp_path):
    path = str(tmp_path / "train.mindrecord")
    d = ds.NumpySlicesDataset({"i": np.arange(5), "img": np.arange(30, dtype=np.uint8).reshape(
        5, 2, 3), "f": np.linspace(0, 1, 5).astype(np.float16), "s": np.array(list("abcde"))},
        shuffle=False)
    d.save(path)
    back = ds.MindDataset(path, shuffle=False)
    assert back.get_col_names() == ["f", "i", "img", "s"]  # name order, as MindSpore lists
    rows = list(back.create_tuple_iterator(output_numpy=True))
    assert [int(r[1]) for r in rows] == [0, 1, 2, 3, 4] and rows[0][1].dtype == np.int64
    assert rows[3][2].dtype == np.int32 and rows[3][2].tolist() == \
        np.arange(18, 24).reshape(2, 3).tolist()  # uint8 is stored as int32
    assert rows[2][0].dtype == np.float32 and abs(float(rows[2][0]) - 0.5) < 1e-3
    assert [str(r[3]) for r in rows] == list("abcde")
    with pytest.raises(RuntimeError, match="exists"):
        d.save(path)
    ds.NumpySlicesDataset(np.arange(5), ["x"], shuffle=False).save(str(tmp_path / "p"), 2)
    parts = [str(tmp_path / "p0"), str(tmp_path / "p1")]
    assert [xs(ds.MindDataset(p, shuffle=False)) for p in parts] == [[0, 2, 4], [1, 3]]
    assert sorted(xs(ds.MindDataset(parts))) == [0, 1, 2, 3, 4]

    def bad():  # fails midway: nothing is left behind
        yield np.array(1)
        raise RuntimeError("boom")
    with pytest.raises(RuntimeError, match="boom"):
        ds.GeneratorDataset(bad, ["x"]).save(str(tmp_path / "bad.mindrecord"))
    assert sorted(os.listdir(tmp_path)) == ["p0", "p1", "train.mindrecord"]
    with pytest.raises(ValueError, match="file_type"):
        d.save(str(tmp_path / "x"), file_type="tfrecord")
    with pytest.raises(ValueError, match="num_files"):
        d.save(str(tmp_path / "x"), num_files=0)


def test_sync_wait_and_sync_update():
    class Augment:  # the tutorial's callback-driven policy
        def __init__(self):
            self.ep_num, self.step_num = 0, 0

        def preprocess(self, input_):
            return np.array((input_ + self.step_num ** self.ep_num - 1),)

        def update(self, data):
            self.ep_num, self.step_num = data["ep_num"], data["step_num"]
    dataset = ds.NumpySlicesDataset(list(range(1, 4)), shuffle=False)
    aug = Augment()
    dataset = dataset.sync_wait(condition_name="policy", callback=aug.update)
    dataset = dataset.map(operations=[aug.preprocess])
    itr = dataset.create_tuple_iterator(num_epochs=5)
    out, step = [], 0
    for ep in range(5):
        for data in itr:
            out.append(int(data[0]))
            step += 1
            dataset.sync_update(condition_name="policy", data={"ep_num": ep, "step_num": step})
    assert out == [1, 2, 3, 1, 5, 7, 6, 50, 66, 81, 1001, 1333, 1728, 28562, 38418]
    # with a batch after it, num_batch counts batches
    calls = []
    b = ds.NumpySlicesDataset(np.arange(6), ["x"], shuffle=False).sync_wait(
        "c", num_batch=1, callback=calls.append).batch(2)
    got = []
    for r in b.create_tuple_iterator(num_epochs=1, output_numpy=True):
        got.append(r[0].tolist())
        b.sync_update("c", data=len(got))
    assert got == [[0, 1], [2, 3], [4, 5]] and calls == [1, 2, 3]
    # no sync_update: it blocks for the callback timeout, then warns and stops blocking
    config.set_callback_timeout(1)
    try:
        s = ds.NumpySlicesDataset(np.arange(3), ["x"], shuffle=False).sync_wait("w")
        with pytest.warns(RuntimeWarning, match="sync_update"):
            assert xs(s) == [0, 1, 2]
    finally:
        config.set_callback_timeout(60)
    with pytest.raises(RuntimeError, match="already exists"):
        s.sync_wait("w")
    with pytest.raises(RuntimeError, match="no sync_wait"):
        s.sync_update("other")
    with pytest.raises(ValueError, match="num_batch"):
        s.sync_update("w", num_batch=0)


# ---- Python objects -------------------------------------------------------------------------
def test_dict_columns_pass_through_and_batch():
    def gen():
        for i in range(5):
            yield {"number": i, "square": i ** 2}, i
    d = ds.GeneratorDataset(gen, ["col1", "col2"])
    rows = list(d.create_dict_iterator(num_epochs=1, output_numpy=True))
    assert rows[3]["col1"] == {"number": 3, "square": 9}
    assert isinstance(rows[3]["col1"]["square"], np.ndarray) and int(rows[3]["col2"]) == 3
    t = next(iter(d.create_dict_iterator(num_epochs=1)))
    assert isinstance(t["col1"]["number"], T.Tensor) and t["col1"]["number"].dtype == T.int64

    def nested(col1):
        assert isinstance(col1, dict)
        return col1["nested_dict"]

    def gen2():
        for i in range(5):
            yield {"nested_dict": {"powers": np.power(i, [1, 2, 3])}}, i
    d = ds.GeneratorDataset(gen2, ["col1", "col2"]).map(nested, ["col1"])
    first = next(iter(d.create_dict_iterator(num_epochs=1, output_numpy=True)))
    assert first["col1"]["powers"].tolist() == [0, 0, 0]
    batch = next(iter(d.batch(5).create_dict_iterator(num_epochs=1, output_numpy=True)))
    assert batch["col1"]["powers"].tolist() == [[i, i * i, i ** 3] for i in range(5)]
    assert batch["col2"].tolist() == [0, 1, 2, 3, 4]

    def per_batch(col1, info):  # the tutorial's: dicts out of per_batch_map
        return {"original_col1": col1, "index": np.arange(3)}, {"copied_col1": col1}
    d = ds.GeneratorDataset(lambda: iter(range(9)), ["col1"]).batch(
        3, per_batch_map=per_batch, output_columns=["col1", "col2"])
    rows = list(d.create_dict_iterator(num_epochs=1, output_numpy=True))
    assert [int(v) for v in rows[1]["col1"]["original_col1"]] == [3, 4, 5]
    assert isinstance(rows[1]["col2"]["copied_col1"], list)
    assert rows[2]["col1"]["index"].tolist() == [0, 1, 2]

    def dict_in(col1, info):  # a dict column reaches per_batch_map as a dict of lists
        return ([sum(col1["a"])] * len(col1["a"]),)
    d = ds.GeneratorDataset(lambda: ({"a": i} for i in range(4)), ["col1"]).batch(
        2, per_batch_map=dict_in)
    assert [r[0].tolist() for r in d.create_tuple_iterator(output_numpy=True)] == [[1, 1], [5, 5]]
    flat = ds.GeneratorDataset(lambda: ({"my_data": np.array(i), "d2": np.array(i + 1)}
                                        for i in range(3)), ["col1"])
    flat = flat.map(lambda d: tuple(d.values()), input_columns=["col1"],
                    output_columns=["my_data", "my_data2"])
    assert [[int(v) for v in r] for r in flat] == [[0, 1], [1, 2], [2, 3]]
    bad = ds.GeneratorDataset(lambda: iter([({"a": 1},), ({"b": 1},)]), ["c"]).batch(2)
    with pytest.raises(ValueError, match="same keys"):
        list(bad)


def test_random_access_rows_with_python_objects():
    class Objs:  # dicts and strings: rows read in Python, samplers still apply
        def __getitem__(self, i):
            return {"id": i}, f"row{i}"

        def __len__(self):
            return 5
    d = ds.GeneratorDataset(Objs(), ["meta", "name"], sampler=ds.SubsetSampler([4, 1]))
    rows = list(d.create_tuple_iterator(output_numpy=True))
    assert [int(r[0]["id"]) for r in rows] == [4, 1] and [str(r[1]) for r in rows] == \
        ["row4", "row1"]
    s = ds.NumpySlicesDataset((["x", "y", "z"], [1, 2, 3]), ["s", "n"], shuffle=False)
    assert [(str(a), int(b)) for a, b in s.create_tuple_iterator(output_numpy=True)] == \
        [("x", 1), ("y", 2), ("z", 3)]
    assert [r[0].tolist() for r in s.batch(2).create_tuple_iterator(output_numpy=True)] == \
        [["x", "y"], ["z"]]


# ---- transforms -----------------------------------------------------------------------------
def test_fill_and_one_hot():
    assert tr.Fill(0)(np.array([1, 2, 3, 4, 5])).tolist() == [0, 0, 0, 0, 0]
    f = tr.Fill(2.7)(np.zeros((2, 2), np.int32))
    assert f.dtype == np.int32 and f.tolist() == [[2, 2], [2, 2]]
    assert tr.Fill("a")(np.array(["x", "y"])).tolist() == ["a", "a"]
    assert tr.OneHot(num_classes=5)(np.array(2)).tolist() == [0, 0, 1, 0, 0]
    oh = tr.OneHot(3, smoothing_rate=0.3)(np.array([0, 2]))
    np.testing.assert_allclose(oh, [[0.8, 0.1, 0.1], [0.1, 0.1, 0.8]], rtol=1e-6)
    d = ds.NumpySlicesDataset(np.array([1, 0]), ["y"], shuffle=False).map(tr.OneHot(2))
    assert [r[0].tolist() for r in d.create_tuple_iterator(output_numpy=True)] == [[0, 1], [1, 0]]
    with pytest.raises(TypeError, match="fill_value"):
        tr.Fill([1])
    with pytest.raises(TypeError, match="cannot fill"):
        tr.Fill(1)(np.array(["a"]))
    with pytest.raises(ValueError, match="num_classes"):
        tr.OneHot(0)
    with pytest.raises(ValueError, match=r"in \[0, 3\)"):
        tr.OneHot(3)(np.array([3]))


def test_random_apply_choice_and_subpolicy(seed):
    img = np.arange(48, dtype=np.uint8).reshape(4, 4, 3)
    flip = vision.RandomVerticalFlip(1.0)
    assert (tr.RandomApply([flip], prob=1.0)(img) == img[::-1]).all()
    assert (tr.RandomApply([flip, vision.Invert()], prob=0.0)(img) == img).all()
    outs = {tr.RandomChoice([flip, vision.Invert(), lambda x: x])(img).tobytes()
            for _ in range(30)}
    assert outs == {img[::-1].tobytes(), (255 - img).tobytes(), img.tobytes()}
    pol = vision.RandomSelectSubpolicy([[(flip, 1.0), (vision.Invert(), 1.0)]])
    assert (pol(img) == 255 - img[::-1]).all()
    pol = vision.RandomSelectSubpolicy([[(flip, 0.0)], [(vision.Invert(), 1.0)]])
    assert {pol(img).tobytes() for _ in range(30)} == {img.tobytes(), (255 - img).tobytes()}
    # in a pipeline: per-row draws fixed by the seed; built-in C++ transforms inside work
    imgs = np.stack([img + i for i in range(16)])
    ops = [tr.RandomApply([vision.RandomCrop(2), flip], prob=0.5)]

    def run():
        d = ds.NumpySlicesDataset(imgs, ["i"], shuffle=False).map(
            [tr.RandomChoice([vision.CenterCrop(2), vision.Invert()])] + ops)
        return [r[0].tobytes() for r in d.create_tuple_iterator(output_numpy=True)]
    seed(7)
    a = run()
    assert a == run() and len(set(a)) == 16
    with pytest.raises(TypeError, match="non-empty list"):
        tr.RandomApply([])
    with pytest.raises(ValueError, match="prob"):
        tr.RandomApply([flip], prob=1.5)
    with pytest.raises(TypeError, match="not callable"):
        tr.RandomChoice([flip, 3])
    with pytest.raises(ValueError, match="prob"):
        vision.RandomSelectSubpolicy([[(flip, -0.1)]])
    with pytest.raises(TypeError, match=r"\(transform, prob\)"):
        vision.RandomSelectSubpolicy([[flip]])


def test_vision_ops_match_pil():
    from PIL import Image, ImageEnhance, ImageOps
    rng = np.random.default_rng(0)
    img = rng.integers(0, 256, (9, 11, 3), dtype=np.uint8)
    low = (img // 3 + 40).astype(np.uint8)
    pil = Image.fromarray(img)
    assert (vision.Invert()(img) == np.asarray(ImageOps.invert(pil))).all()
    assert (vision.RandomPosterize(3)(img) == np.asarray(ImageOps.posterize(pil, 3))).all()
    assert (vision.RandomSolarize((100, 100))(img) == np.asarray(ImageOps.solarize(pil, 100))).all()
    sol = vision.RandomSolarize((0, 255))(img)
    assert ((sol == img) | (sol == 255 - img)).all()
    for cutoff in (0.0, 10.0):
        assert (vision.AutoContrast(cutoff)(low) ==
                np.asarray(ImageOps.autocontrast(Image.fromarray(low), cutoff))).all()
    assert (vision.AutoContrast(ignore=[0, 255])(low) ==
            np.asarray(ImageOps.autocontrast(Image.fromarray(low), ignore=[0, 255]))).all()
    for f in (0.3, 1.6):
        color = vision.RandomColor((f, f))(img).astype(int)
        assert np.abs(color - np.asarray(ImageEnhance.Color(pil).enhance(f))).max() <= 1
        sharp = vision.RandomSharpness((f, f))(img).astype(int)
        assert np.abs(sharp - np.asarray(ImageEnhance.Sharpness(pil).enhance(f))).max() <= 1
    out = vision.Invert()(Image.fromarray(img))  # PIL in, PIL out
    assert isinstance(out, Image.Image) and (np.asarray(out) == 255 - img).all()


def test_equalize_and_color_adjust():
    ch = np.array([[10, 10, 20], [20, 20, 30]], np.uint8)  # OpenCV's equalizeHist
    # hist: 10 -> 2, 20 -> 3, 30 -> 1; scale 255 / (6 - 2); lut[20] = 3 * 63.75, lut[30] = 255
    assert vision.Equalize()(ch).tolist() == [[0, 0, 191], [191, 191, 255]]
    assert (vision.Equalize()(np.full((3, 3), 7, np.uint8)) == 7).all()
    img = np.array([[[255, 0, 0], [0, 0, 255]]], np.uint8)
    assert vision.RandomColorAdjust(hue=(1 / 3, 1 / 3))(img).tolist() == \
        [[[0, 255, 0], [255, 0, 0]]]
    half = np.full((2, 2, 3), 100, np.uint8)
    assert (vision.RandomColorAdjust(brightness=(2, 2))(half) == 200).all()
    assert (vision.RandomColorAdjust(brightness=(3, 3))(half) == 255).all()
    assert (vision.RandomColorAdjust(saturation=(0, 0))(img) ==
            np.rint(img @ [0.299, 0.587, 0.114])[..., None]).all()
    c = vision.RandomColorAdjust(contrast=(0, 0))(img)
    assert (c == round(float(np.rint(img @ [0.299, 0.587, 0.114]).mean()))).all()
    with pytest.raises(ValueError, match="hue"):
        vision.RandomColorAdjust(hue=0.7)
    with pytest.raises(ValueError, match="brightness"):
        vision.RandomColorAdjust(brightness=-1)
    with pytest.raises(TypeError, match="uint8"):
        vision.Equalize()(np.zeros((2, 2), np.float32))


def test_geometry():
    img = np.arange(5 * 5 * 3, dtype=np.uint8).reshape(5, 5, 3)
    assert (vision.RandomRotation((90, 90))(img) == np.rot90(img)).all()  # counter-clockwise
    assert (vision.RandomRotation((90, 90), resample=vision.Inter.BILINEAR)(img)
            == np.rot90(img)).all()
    assert (vision.RandomAffine(degrees=(90, 90))(img) == np.rot90(img, -1)).all()  # clockwise
    wide = np.arange(4 * 8, dtype=np.uint8).reshape(4, 8)
    shifted = vision.RandomAffine(degrees=0, translate=(0.25, 0.25), fill_value=9)(wide)
    assert (shifted[:, 2:] == wide[:, :-2]).all() and (shifted[:, :2] == 9).all()
    big = vision.RandomRotation((90, 90), expand=True)(np.zeros((2, 6), np.uint8))
    assert big.shape == (6, 2)
    scaled = vision.RandomAffine(0, scale=(1.0, 1.0), shear=(0.0, 0.0))(img)
    assert (scaled == img).all()
    assert (vision.RandomVerticalFlip(1.0)(img) == img[::-1]).all()
    angles = {vision.RandomRotation(30)(img).tobytes() for _ in range(10)}
    assert len(angles) > 1
    with pytest.raises(NotImplementedError, match="NEAREST"):
        vision.RandomRotation(10, resample=vision.Inter.BICUBIC)
    with pytest.raises(ValueError, match="degrees"):
        vision.RandomRotation(-5)
    with pytest.raises(TypeError, match="translate"):
        vision.RandomAffine(0, translate=(0.1,))
    with pytest.raises(ValueError, match="bits"):
        vision.RandomPosterize((0, 9))


def test_tutorial_augment_policies_build():
    """The augment tutorial's AutoAugment policy parameters all construct."""
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        policy = [[(vision.RandomPosterize(bits=(1, 1)), 0.4),
                   (tr.RandomChoice([vision.RandomRotation(degrees=(-27, -27)),
                                     vision.RandomRotation(degrees=(27, 27))]), 0.6)],
                  [(vision.RandomSolarize(threshold=(0, 128)), 0.6), (vision.AutoContrast(), 0.6)],
                  [(vision.Equalize(), 0.8), (vision.RandomColor(degrees=(0.1, 0.1)), 0.4)],
                  [(tr.RandomChoice([vision.RandomAffine(degrees=0, shear=(-0.15, -0.15)),
                                     vision.RandomAffine(degrees=0, translate=(0, 0, 0.2, 0.2))]),
                    0.6), (vision.RandomSharpness(degrees=(1.36, 1.36)), 0.4)],
                  [(vision.RandomColorAdjust(contrast=(1.54, 1.54)), 1.0),
                   (vision.Invert(), 0.6)]]
    p = vision.RandomSelectSubpolicy(policy)
    img = np.random.default_rng(1).integers(0, 256, (16, 16, 3), dtype=np.uint8)
    outs = [p(img) for _ in range(20)]
    assert all(o.shape == img.shape and o.dtype == np.uint8 for o in outs)
