"""tandem.d2l's data helpers for the computer-vision and NLP-application chapters, on tiny
fixture archives written here in the real data sets' on-disk layouts (the data hub is
pointed at them with their own SHA-1s)."""
import collections
import hashlib
import io
import os
import tarfile
import zipfile

import numpy as np
import pytest

import tandem
from tandem import d2l, mint
from tandem.mint import nn

PIL = pytest.importorskip("PIL.Image")


# --- fixture builders (also used to run the book's sections on fake data) ----------------------
def _png(arr, mode=None, palette=None):
    img = PIL.fromarray(np.asarray(arr, dtype=np.uint8), mode)
    if palette is not None:
        img.putpalette(palette)
    buf = io.BytesIO()
    img.save(buf, format="PNG")
    return buf.getvalue()


def _jpeg(arr):
    buf = io.BytesIO()
    PIL.fromarray(np.asarray(arr, dtype=np.uint8)).save(buf, format="JPEG", quality=95)
    return buf.getvalue()


def _zip(path, files):
    with zipfile.ZipFile(path, "w") as z:
        for name, data in files.items():
            z.writestr(name, data)
    return str(path)


def _tar(path, files, mode="w"):
    with tarfile.open(path, mode) as t:
        for name, data in files.items():
            data = data.encode() if isinstance(data, str) else data
            info = tarfile.TarInfo(name)
            info.size = len(data)
            t.addfile(info, io.BytesIO(data))
    return str(path)


IMDB = {"train/pos/a.txt": "good good good movie", "train/pos/b.txt": "good great great movie",
        "train/pos/c.txt": "good movie\n", "train/neg/a.txt": "bad bad bad movie",
        "train/neg/b.txt": "bad awful movie movie", "test/pos/x.txt": "good movie rocks",
        "test/neg/y.txt": "bad movie"}


def make_imdb(d, reviews=IMDB):
    return _tar(os.path.join(d, "aclImdb_v1.tar.gz"),
                {f"aclImdb/{k}": v for k, v in reviews.items()}, "w:gz")


SNLI_HEADER = ("gold_label\tsentence1_binary_parse\tsentence2_binary_parse\tsentence1_parse\t"
               "sentence2_parse\tsentence1\tsentence2\tcaptionID\tpairID\tlabel1\tlabel2\t"
               "label3\tlabel4\tlabel5\n")


def _snli_row(label, p, h):
    text = [s.replace("(", "").replace(")", "") for s in (p, h)]
    return (f"{label}\t{p}\t{h}\t(ROOT {p})\t(ROOT {h})\t{text[0]}.\t{text[1]}.\t1.jpg#0\t"
            f"1.jpg#0r1n\t{label}\t\t\t\t\n")


SNLI_TRAIN = [("entailment", "( ( a man ) runs )", "( a man )"),
              ("contradiction", "( ( a man ) runs )", "( ( a man ) sleeps )"),
              ("neutral", "( ( a dog ) runs )", "( ( a man )  ( runs fast ) )"),
              ("-", "( a cat )", "( a cat )"),
              ("entailment", "( ( a man ) runs )", "( a man )")]
SNLI_TEST = [("contradiction", "( a dog )", "( ( a man ) sleeps )"), ("-", "( a )", "( a )"),
             ("entailment", "( a man )", "( a dog )")]


def make_snli(d, train=SNLI_TRAIN, test=SNLI_TEST):
    files = {f"snli_1.0/snli_1.0_{split}.txt": SNLI_HEADER + "".join(_snli_row(*r) for r in rows)
             for split, rows in (("train", train), ("test", test), ("dev", test))}
    return _zip(os.path.join(d, "snli_1.0.zip"), files)


BANANA_TRAIN = [("0.png", 0, 104, 20, 143, 58), ("1.png", 0, 68, 175, 118, 223),
                ("2.png", 0, 0, 0, 256, 256)]
BANANA_VAL = [("0.png", 0, 10, 12, 40, 44)]


def banana_image(i, size):
    return (np.arange(size * size * 3).reshape(size, size, 3) * (i + 1)) % 251


def make_bananas(d, train=BANANA_TRAIN, val=BANANA_VAL, size=8):
    files = {}
    for part, rows in (("bananas_train", train), ("bananas_val", val)):
        csv = "img_name,label,xmin,ymin,xmax,ymax\n"
        for i, row in enumerate(rows):
            csv += ",".join(str(v) for v in row) + "\n"
            files[f"banana-detection/{part}/images/{row[0]}"] = _png(banana_image(i, size))
        files[f"banana-detection/{part}/label.csv"] = csv
    return _zip(os.path.join(d, "banana-detection.zip"), files)


VOID = (224, 224, 192)
VOC_PALETTE = [c for rgb in d2l.VOC_COLORMAP for c in rgb] + [0] * 3 * (255 - 21) + list(VOID)


def voc_class_map(h, w, seed):
    idx = (np.arange(h * w).reshape(h, w) * 7 + seed) % 21
    idx[0, 0] = 255  # the void border colour
    return idx


def voc_image(h, w, seed):
    rng = np.random.default_rng(seed)
    return rng.integers(0, 256, (h, w, 3))


def make_voc(d, train=(("2007_000032", 6, 8), ("2007_000033", 4, 4)),
             val=(("2007_000039", 6, 6),)):
    root = "VOCdevkit/VOC2012/"
    files = {}
    for split, items in (("train", train), ("val", val)):
        files[root + f"ImageSets/Segmentation/{split}.txt"] = "".join(n + "\n" for n, _, _ in items)
        for k, (name, h, w) in enumerate(items):
            files[root + f"JPEGImages/{name}.jpg"] = _jpeg(voc_image(h, w, k))
            files[root + f"SegmentationClass/{name}.png"] = _png(voc_class_map(h, w, k), "P",
                                                                 VOC_PALETTE)
    return _tar(os.path.join(d, "VOCtrainval_11-May-2012.tar"), files)


def make_kaggle(d, counts, n_test=3, size=None):
    """A Kaggle-style folder: train/<id>.png, test/<id>.png, trainLabels.csv (id,label)."""
    os.makedirs(os.path.join(d, "train"), exist_ok=True)
    os.makedirs(os.path.join(d, "test"), exist_ok=True)
    lines, i = ["id,label"], 0
    for label, n in counts.items():
        for _ in range(n):
            i += 1
            lines.append(f"{i},{label}")
            data = _png(banana_image(i, size)) if size else str(i).encode()
            with open(os.path.join(d, "train", f"{i}.png"), "wb") as f:
                f.write(data)
    for j in range(1, n_test + 1):
        with open(os.path.join(d, "test", f"{j}.png"), "wb") as f:
            f.write(_png(banana_image(j, size)) if size else b"t")
    with open(os.path.join(d, "trainLabels.csv"), "w") as f:
        f.write("\n".join(lines) + "\n")
    return d


def _sha1(path):
    with open(path, "rb") as f:
        return hashlib.sha1(f.read()).hexdigest()


@pytest.fixture
def hub(monkeypatch, tmp_path):
    """Points the data hub at tmp_path/data; ``hub(name, archive)`` registers a fixture
    archive under DATA_HUB[name] with its own SHA-1."""
    data = tmp_path / "data"
    data.mkdir()
    monkeypatch.setenv("TANDEM_DATA", str(data))
    monkeypatch.setenv("TANDEM_D2L_CACHE", str(tmp_path / "cache"))
    monkeypatch.chdir(tmp_path)  # the book's ../data cache dir must not exist

    def register(name, archive):
        url = d2l.DATA_HUB[name][0]
        monkeypatch.setitem(d2l.DATA_HUB, name, (url, _sha1(archive)))
        return archive
    register.dir = str(data)
    return register


# --- data hub ----------------------------------------------------------------------------------
def test_data_hub_entries_are_the_books():
    want = {"hotdog": ("hotdog.zip", "fba480ffa8aa7e0febbb511d181409f899b9baa5"),
            "banana-detection": ("banana-detection.zip",
                                 "5de26c8fce5ccdea9f91267273464dc968d20d72"),
            "voc2012": ("VOCtrainval_11-May-2012.tar", "4e443f8a2eca6b1dac8a6c57641b67dd40621a49"),
            "cifar10_tiny": ("kaggle_cifar10_tiny.zip",
                             "2068874e4b9a9f0fb07ebe0ad2b29754449ccacd"),
            "dog_tiny": ("kaggle_dog_tiny.zip", "0cb91d09b814ecdc07b50f31f8dcad3e81d6a86d"),
            "aclImdb": ("aclImdb_v1.tar.gz", "01ada507287d82875905620988597833ad4e0903"),
            "SNLI": ("snli_1.0.zip", "9fcde07509c7e87ec61c640c1b2753d9041758e4")}
    for name, (fname, sha1) in want.items():
        url, got = d2l.DATA_HUB[name]
        assert url.split("/")[-1] == fname and got == sha1, name


def test_missing_archives_raise(hub):
    for fn, args in ((d2l.load_data_imdb, (2,)), (d2l.load_data_snli, (2,)),
                     (d2l.read_data_bananas, ()), (d2l.load_data_voc, (1, (2, 2)))):
        with pytest.raises(FileNotFoundError, match="never downloads"):
            fn(*args)
    # a file with another SHA-1 than the book's is refused
    make_bananas(hub.dir)
    with pytest.raises(ValueError, match="SHA-1"):
        d2l.read_data_bananas()


# --- IMDb --------------------------------------------------------------------------------------
def test_read_imdb_order_labels_and_newlines(hub):
    hub("aclImdb", make_imdb(hub.dir))
    data_dir = d2l.download_extract("aclImdb", "aclImdb")
    reviews, labels = d2l.read_imdb(data_dir, is_train=True)
    assert reviews == ["good good good movie", "good great great movie", "good movie",
                       "bad bad bad movie", "bad awful movie movie"]
    assert labels == [1, 1, 1, 0, 0]
    assert d2l.read_imdb(data_dir, is_train=False) == (["good movie rocks", "bad movie"], [1, 0])
    with pytest.raises(FileNotFoundError, match="pos"):
        d2l.read_imdb(os.path.join(data_dir, "nowhere"), True)


def test_load_data_imdb_vocab_truncate_pad(hub):
    hub("aclImdb", make_imdb(hub.dir))
    train_iter, test_iter, vocab = d2l.load_data_imdb(batch_size=2, num_steps=3)
    # min_freq=5 keeps movie (6) and good (5); bad (4) and the rest are '<unk>'
    assert vocab.idx_to_token == ["<unk>", "movie", "good"]
    rows = sorted((tuple(X.tolist()), int(y)) for Xb, yb in train_iter
                  for X, y in zip(Xb, yb))
    assert rows == sorted([((2, 2, 2), 1), ((2, 0, 0), 1), ((2, 1, 0), 1), ((0, 0, 0), 0),
                           ((0, 0, 1), 0)])
    X, y = next(iter(test_iter))  # not shuffled: pos first; padding is index 0
    assert X.dtype == mint.int64 and tuple(X.shape) == (2, 3) and y.dtype == mint.int64
    assert X.tolist() == [[2, 1, 0], [0, 1, 0]] and y.tolist() == [1, 0]
    _, long_test, long_vocab = d2l.load_data_imdb(batch_size=2, num_steps=8)
    Xl, _ = next(iter(long_test))
    assert Xl.shape[1] == 8 and long_vocab.idx_to_token == vocab.idx_to_token


def test_predict_sentiment():
    vocab = d2l.Vocab([["good", "bad"]])
    seen = []

    def net(X):
        seen.append(X)
        return mint.tensor([[0.0, 1.0]]) if X[0, 0] == vocab["good"] else mint.tensor([[1.0, 0.0]])
    assert d2l.predict_sentiment(net, vocab, "good movie") == "positive"
    assert d2l.predict_sentiment(net, vocab, "bad movie") == "negative"
    assert tuple(seen[0].shape) == (1, 2) and seen[0].tolist() == [[vocab["good"], 0]]


# --- SNLI --------------------------------------------------------------------------------------
def test_read_snli_strips_parses_and_filters_labels(hub):
    hub("SNLI", make_snli(hub.dir))
    data_dir = d2l.download_extract("SNLI")
    premises, hypotheses, labels = d2l.read_snli(data_dir, is_train=True)
    assert premises == ["a man runs", "a man runs", "a dog runs", "a man runs"]
    assert hypotheses == ["a man", "a man sleeps", "a man runs fast", "a man"]
    assert labels == [0, 1, 2, 0]  # the '-' row is dropped
    assert d2l.read_snli(data_dir, is_train=False) == (["a dog", "a man"],
                                                       ["a man sleeps", "a dog"], [1, 0])


def test_snli_dataset_and_loader(hub):
    hub("SNLI", make_snli(hub.dir))
    train_iter, test_iter, vocab = d2l.load_data_snli(batch_size=2, num_steps=4)
    # min_freq=5 over premises + hypotheses: a (8), man (7), runs (5); '<pad>' reserved
    assert vocab.idx_to_token == ["<unk>", "<pad>", "a", "man", "runs"]
    ds = train_iter.dataset
    assert isinstance(ds, d2l.SNLIDataset) and len(ds) == 4
    (p, h), y = ds[2]
    assert p.tolist() == [2, 0, 4, 1] and h.tolist() == [2, 3, 4, 0] and int(y) == 2
    assert ds.premises.dtype == mint.int64 and tuple(ds.hypotheses.shape) == (4, 4)
    batches = list(train_iter)
    assert len(batches) == 2
    (P, H), Y = batches[0]
    assert tuple(P.shape) == (2, 4) and tuple(H.shape) == (2, 4) and tuple(Y.shape) == (2,)
    assert sorted(int(v) for _, Yb in batches for v in Yb) == [0, 0, 1, 2]
    for _ in range(5):  # the test set is not shuffled, and uses the train vocabulary
        (P, H), Y = next(iter(test_iter))
        assert P.tolist() == [[2, 0, 1, 1], [2, 3, 1, 1]] and Y.tolist() == [1, 0]
        assert H.tolist() == [[2, 3, 0, 1], [2, 0, 1, 1]]
    own = d2l.SNLIDataset((["a b"], ["b"], [2]), 3)
    assert own.vocab.idx_to_token == ["<unk>", "<pad>"] and own.premises.tolist() == [[0, 0, 1]]


def test_predict_snli_and_split_batch():
    vocab = d2l.Vocab([["a", "man"]], reserved_tokens=["<pad>"])

    class Net(nn.Module):
        def forward(self, X):
            self.seen = X
            return mint.tensor([[0.1, 0.2, 0.9]])
    net = Net()
    net.train()
    assert d2l.predict_snli(net, vocab, ["a", "man"], ["man"]) == "neutral"
    assert not net.training
    assert net.seen[0].tolist() == [vocab[["a", "man"]]] and tuple(net.seen[1].shape) == (1, 1)
    X, y = mint.arange(10).reshape(5, 2), mint.arange(5)
    xs, ys = d2l.split_batch(X, y, [d2l.try_gpu(), d2l.try_gpu()])
    assert [x.tolist() for x in xs] == [[[0, 1], [2, 3], [4, 5]], [[6, 7], [8, 9]]]
    assert [t.tolist() for t in ys] == [[0, 1, 2], [3, 4]]
    with pytest.raises(ValueError):
        d2l.split_batch(X, mint.arange(4), [d2l.try_gpu()])


# --- bananas -----------------------------------------------------------------------------------
def test_read_data_bananas(hub):
    hub("banana-detection", make_bananas(hub.dir))
    images, labels = d2l.read_data_bananas(is_train=True)
    assert len(images) == 3 and images[0].dtype == mint.uint8
    assert tuple(images[0].shape) == (3, 8, 8)
    np.testing.assert_array_equal(images[1].numpy(), banana_image(1, 8).transpose(2, 0, 1))
    assert labels.dtype == mint.float32 and tuple(labels.shape) == (3, 1, 5)
    want = np.array([r[1:] for r in BANANA_TRAIN], dtype=np.float32)[:, None, :] / 256
    np.testing.assert_allclose(labels.numpy(), want)
    _, val = d2l.read_data_bananas(is_train=False)
    np.testing.assert_allclose(val.numpy(), [[[0, 10 / 256, 12 / 256, 40 / 256, 44 / 256]]])


def test_bananas_dataset_and_loader(hub, capsys):
    hub("banana-detection", make_bananas(hub.dir))
    train_iter, val_iter = d2l.load_data_bananas(batch_size=2)
    out = capsys.readouterr().out
    assert "read 3 training examples" in out and "read 1 validation examples" in out
    x, y = train_iter.dataset[0]
    assert x.dtype == mint.float32 and float(x.max()) > 1 and tuple(y.shape) == (1, 5)
    X, Y = next(iter(train_iter))
    assert tuple(X.shape) == (2, 3, 8, 8) and X.dtype == mint.float32
    assert tuple(Y.shape) == (2, 1, 5)
    X, Y = next(iter(val_iter))
    np.testing.assert_array_equal(X[0].numpy(), banana_image(0, 8).transpose(2, 0, 1))


def test_bananas_missing_image(hub):
    hub("banana-detection", make_bananas(hub.dir, val=[("gone.png", 0, 1, 2, 3, 4)]))
    arch = zipfile.ZipFile(os.path.join(hub.dir, "banana-detection.zip"))
    names = [n for n in arch.namelist() if "bananas_val/images" not in n]
    hub("banana-detection", _zip(os.path.join(hub.dir, "banana-detection.zip"),
                                 {n: arch.read(n) for n in names}))
    with pytest.raises(FileNotFoundError):
        d2l.read_data_bananas(is_train=False)


# --- VOC ---------------------------------------------------------------------------------------
def test_voc_colormap_tables():
    assert len(d2l.VOC_COLORMAP) == len(d2l.VOC_CLASSES) == 21
    assert d2l.VOC_CLASSES[1] == "aeroplane" and d2l.VOC_COLORMAP[15] == [192, 128, 128]
    table = d2l.voc_colormap2label()
    assert table.dtype == mint.int64 and tuple(table.shape) == (256 ** 3,)
    for cls, (r, g, b) in enumerate(d2l.VOC_COLORMAP):
        assert int(table[(r * 256 + g) * 256 + b]) == cls
    assert int(table.sum()) == sum(range(21))
    # each palette colour becomes its class; an unknown colour (void) becomes 0
    cmap = np.array(d2l.VOC_COLORMAP + [list(VOID)], dtype=np.uint8).T.reshape(3, 2, 11)
    idx = d2l.voc_label_indices(mint.tensor(cmap), table)
    assert idx.dtype == mint.int64 and idx.tolist() == [list(range(11)),
                                                        list(range(11, 21)) + [0]]


def test_read_voc_images_and_label_indices(hub):
    hub("voc2012", make_voc(hub.dir))
    voc_dir = d2l.download_extract("voc2012", os.path.join("VOCdevkit", "VOC2012"))
    features, labels = d2l.read_voc_images(voc_dir, is_train=True)
    assert [tuple(f.shape) for f in features] == [(3, 6, 8), (3, 4, 4)]
    assert [tuple(l.shape) for l in labels] == [(3, 6, 8), (3, 4, 4)]
    assert features[0].dtype == mint.uint8 and labels[0].dtype == mint.uint8
    # the palette PNG is read as RGB colours
    assert labels[0][:, 0, 1].tolist() == d2l.VOC_COLORMAP[7]
    assert labels[0][:, 0, 0].tolist() == list(VOID)
    y = d2l.voc_label_indices(labels[0], d2l.voc_colormap2label())
    want = voc_class_map(6, 8, 0)
    want[want == 255] = 0
    assert y.tolist() == want.tolist()
    # label images are read as RGB whatever their PNG mode (here RGBA)
    rgba = np.concatenate([labels[1].numpy().transpose(1, 2, 0), np.full((4, 4, 1), 9)], -1)
    with open(os.path.join(voc_dir, "SegmentationClass", "2007_000033.png"), "wb") as f:
        f.write(_png(rgba, "RGBA"))
    assert tuple(d2l.read_voc_images(voc_dir, is_train=True)[1][1].shape) == (3, 4, 4)
    vf, vl = d2l.read_voc_images(voc_dir, is_train=False)
    assert len(vf) == 1 and tuple(vl[0].shape) == (3, 6, 6)
    with open(os.path.join(voc_dir, "ImageSets", "Segmentation", "val.txt"), "a") as f:
        f.write("2007_999999\n")
    with pytest.raises(FileNotFoundError):
        d2l.read_voc_images(voc_dir, is_train=False)


def test_voc_rand_crop_aligns_feature_and_label():
    tandem.manual_seed(0)
    feature = mint.arange(2 * 6 * 8).reshape(2, 6, 8)
    label = mint.arange(6 * 8).reshape(1, 6, 8) + 1000
    offsets = set()
    for _ in range(200):
        f, l = d2l.voc_rand_crop(feature, label, 5, 5)
        assert tuple(f.shape) == (2, 5, 5) and tuple(l.shape) == (1, 5, 5)
        top, left = divmod(int(f[0, 0, 0]), 8)
        offsets.add((top, left))
        assert int(l[0, 0, 0]) == 1000 + top * 8 + left
        np.testing.assert_array_equal(f.numpy(), feature.numpy()[:, top:top + 5, left:left + 5])
    assert offsets == {(t, s) for t in range(2) for s in range(4)}
    f, l = d2l.voc_rand_crop(feature, label, 6, 8)
    assert f.tolist() == feature.tolist()
    with pytest.raises(ValueError, match="larger"):
        d2l.voc_rand_crop(feature, label, 7, 2)


def test_voc_seg_dataset_and_loader(hub, capsys):
    hub("voc2012", make_voc(hub.dir))
    voc_dir = d2l.download_extract("voc2012", os.path.join("VOCdevkit", "VOC2012"))
    ds = d2l.VOCSegDataset(True, (5, 5), voc_dir)
    assert len(ds) == 1 and "read 1 examples" in capsys.readouterr().out  # 4x4 is dropped
    raw = d2l.read_voc_images(voc_dir, True)[0][0].numpy().astype(np.float32) / 255
    mean = np.array([0.485, 0.456, 0.406], np.float32)[:, None, None]
    std = np.array([0.229, 0.224, 0.225], np.float32)[:, None, None]
    norm = (raw - mean) / std
    np.testing.assert_allclose(ds.features[0].numpy(), norm, rtol=1e-5, atol=1e-5)
    classes = voc_class_map(6, 8, 0)
    classes[classes == 255] = 0
    for _ in range(10):
        x, y = ds[0]
        assert x.dtype == mint.float32 and tuple(x.shape) == (3, 5, 5)
        assert y.dtype == mint.int64 and tuple(y.shape) == (5, 5)
        hits = [(t, s) for t in range(2) for s in range(4)
                if np.allclose(norm[:, t:t + 5, s:s + 5], x.numpy(), atol=1e-5)]
        assert len(hits) == 1
        t, s = hits[0]
        assert y.tolist() == classes[t:t + 5, s:s + 5].tolist()
    train_iter, test_iter = d2l.load_data_voc(batch_size=1, crop_size=(5, 5))
    X, Y = next(iter(train_iter))
    assert tuple(X.shape) == (1, 3, 5, 5) and tuple(Y.shape) == (1, 5, 5)
    assert len(test_iter) == 1 and len(list(d2l.load_data_voc(2, (5, 5))[0])) == 0  # drop_last


# --- Kaggle folders ----------------------------------------------------------------------------
def test_read_csv_labels(tmp_path):
    f = tmp_path / "trainLabels.csv"
    f.write_text("id,label\n1,frog\n2,truck\n\n")
    assert d2l.read_csv_labels(str(f)) == {"1": "frog", "2": "truck"}
    f.write_text("id,label\n1,frog,x\n")
    with pytest.raises(ValueError, match="fields"):
        d2l.read_csv_labels(str(f))
    with pytest.raises(FileNotFoundError):
        d2l.read_csv_labels(str(tmp_path / "none.csv"))


@pytest.mark.parametrize("ratio,n_valid", [(0.5, 2), (0.1, 1)])
def test_reorg_train_valid_and_test(tmp_path, ratio, n_valid):
    counts = {"cat": 4, "dog": 6, "frog": 10}
    d = make_kaggle(str(tmp_path / "kaggle"), counts)
    labels = d2l.read_csv_labels(os.path.join(d, "trainLabels.csv"))
    assert d2l.reorg_train_valid(d, labels, ratio) == n_valid
    out = os.path.join(d, "train_valid_test")

    def files(part):
        return {c: set(os.listdir(os.path.join(out, part, c)))
                for c in os.listdir(os.path.join(out, part))}
    valid, train, both = files("valid"), files("train"), files("train_valid")
    assert {c: len(v) for c, v in valid.items()} == {c: n_valid for c in counts}
    assert {c: len(v) for c, v in train.items()} == {c: n - n_valid for c, n in counts.items()}
    for c in counts:
        assert valid[c] | train[c] == both[c] and not valid[c] & train[c]
        assert all(labels[f.split(".")[0]] == c for f in both[c])
    d2l.reorg_test(d)
    assert sorted(os.listdir(os.path.join(out, "test", "unknown"))) == ["1.png", "2.png",
                                                                        "3.png"]
    d2l.copyfile(os.path.join(d, "trainLabels.csv"), os.path.join(d, "new", "dir"))
    assert os.path.isfile(os.path.join(d, "new", "dir", "trainLabels.csv"))
    del labels["1"]
    with pytest.raises(KeyError):
        d2l.reorg_train_valid(d, labels, ratio)


def test_exports():
    names = ["read_imdb", "load_data_imdb", "predict_sentiment", "read_snli", "SNLIDataset",
             "load_data_snli", "predict_snli", "split_batch", "read_data_bananas",
             "BananasDataset", "load_data_bananas", "read_voc_images", "voc_colormap2label",
             "voc_label_indices", "voc_rand_crop", "VOCSegDataset", "load_data_voc", "copyfile",
             "read_csv_labels", "reorg_train_valid", "reorg_test"]
    assert [n for n in names if not callable(getattr(d2l, n, None))] == []
    assert collections.Counter(map(tuple, d2l.VOC_COLORMAP)).most_common(1)[0][1] == 1
