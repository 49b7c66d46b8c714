"""Data parallelism, MindSpore face: tests/distributed/ms_data_parallel_worker.py runs under
``mpirun -n 2`` and ``-n 3`` (ops.AllReduce/AllGather/Broadcast, DistributedSampler from the
group, nn.DistributedGradReducer and TrainOneStepCell under DATA_PARALLEL against one
process on the global batch, Model.train on dataset shards, ModelCheckpoint on rank 0);
the rest runs in this process: the auto-parallel context, dataset sharding and the errors."""
import json
import os
import pathlib
import re
import subprocess
import sys

import numpy as np
import pytest
from mpi_util import MPIRUN, mpi_env, needs_mpi

import tandem
from tandem import nn, ops
from tandem.dataset import GeneratorDataset, NumpySlicesDataset

HERE = pathlib.Path(__file__).parent
WORKER = HERE.parent / "distributed" / "ms_data_parallel_worker.py"


@needs_mpi
@pytest.mark.parametrize("n", [2, 3])
def test_mindspore_face_matches_one_process(n, tmp_path):
    cmd = [MPIRUN, "--oversubscribe", "--allow-run-as-root", "-n", str(n), sys.executable,
           str(WORKER), str(tmp_path)]
    r = subprocess.run(cmd, capture_output=True, text=True, env=mpi_env(), timeout=90)
    assert r.returncode == 0, r.stdout + r.stderr
    oks = sorted(re.findall(r"OK (\d+) (\d+) ", r.stdout))
    assert oks == [(str(i), str(n)) for i in range(n)], r.stdout + r.stderr


def _mnist_present() -> bool:
    d = os.environ.get("TANDEM_FASHION_MNIST_DIR", "/usr/share/datasets/fashion-mnist")
    return all(os.path.exists(os.path.join(d, n)) or os.path.exists(os.path.join(d, n + ".gz"))
               for n in ("train-images-idx3-ubyte", "train-labels-idx1-ubyte",
                         "t10k-images-idx3-ubyte", "t10k-labels-idx1-ubyte"))


@needs_mpi
@pytest.mark.skipif(not _mnist_present(), reason="Fashion-MNIST is absent")
@pytest.mark.parametrize("mode", ["pynative", "graph"])
def test_d2l_lenet_distributed(tmp_path, mode):
    """examples/python/d2l/lenet.py --distributed on 2 ranks through python -m tandem.run:
    one report (rank 0's), the test accuracy counted over all 64 test images once; in graph
    mode the compiled step holds the DDP all_reduces."""
    script = HERE.parent.parent / "examples" / "python" / "d2l" / "lenet.py"
    plot = tmp_path / "lenet.png"
    cmd = [sys.executable, "-m", "tandem.run", "-n", "2", str(script), "--distributed",
           "--mode", mode, "--epochs", "1", "--limit", "192", "--test-limit", "64",
           "--batch-size", "32", "--no-progress", "--plot", str(plot)]
    r = subprocess.run(cmd, capture_output=True, text=True, env=mpi_env(), timeout=120,
                       cwd=tmp_path)
    assert r.returncode == 0, r.stdout + r.stderr
    results = re.findall(r"^RESULT (.*)$", r.stdout, re.M)
    assert len(results) == 1, r.stdout
    res = json.loads(results[0])
    assert res["ranks"] == 2 and res["epochs"] == 1
    assert abs(res["test_acc"][0] * 64 - round(res["test_acc"][0] * 64)) < 1e-3
    assert plot.stat().st_size > 1000 and sorted(p.name for p in tmp_path.iterdir()) == [
        "lenet.png"]


@pytest.fixture
def context():
    tandem.reset_auto_parallel_context()
    yield
    tandem.reset_auto_parallel_context()


def test_auto_parallel_context(context):
    get = tandem.get_auto_parallel_context
    assert get("parallel_mode") == tandem.ParallelMode.STAND_ALONE == "stand_alone"
    assert get("gradients_mean") is False and get("device_num") == 1 and get("global_rank") == 0
    tandem.set_auto_parallel_context(parallel_mode=tandem.ParallelMode.DATA_PARALLEL,
                                     gradients_mean=True, device_num=8,
                                     all_reduce_fusion_config=[2])
    assert get("parallel_mode") == "data_parallel" and get("gradients_mean") is True
    assert get("device_num") == 8 and get("all_reduce_fusion_config") == [2]
    assert tandem.context.get_auto_parallel_context("device_num") == 8
    tandem.reset_auto_parallel_context()
    assert get("parallel_mode") == "stand_alone" and get("device_num") == 1
    for mode in ("semi_auto_parallel", "auto_parallel", "hybrid_parallel"):
        with pytest.raises(NotImplementedError, match="model parallelism"):
            tandem.set_auto_parallel_context(parallel_mode=mode)
    with pytest.raises(ValueError, match="parallel_mode must be one of"):
        tandem.set_auto_parallel_context(parallel_mode="data")
    with pytest.raises(ValueError, match="unknown option 'colour'"):
        tandem.set_auto_parallel_context(colour=1)
    with pytest.raises(ValueError, match="unknown option"):
        get("colour")
    with pytest.raises(ValueError, match="gradients_mean must be a bool"):
        tandem.set_auto_parallel_context(gradients_mean=1)
    with pytest.raises(ValueError, match=r"device_num must be in \[1, 4096\]"):
        tandem.set_auto_parallel_context(device_num=0)
    with pytest.raises(NotImplementedError, match="pipeline_stages"):
        tandem.set_auto_parallel_context(pipeline_stages=2)
    with pytest.raises(NotImplementedError, match="parallel optimizer"):
        tandem.set_auto_parallel_context(enable_parallel_optimizer=True)
    assert get("parallel_mode") == "stand_alone"  # failed calls changed nothing


def test_train_one_step_cell_is_plain_outside_data_parallel(context):
    net = nn.Dense(3, 2)
    step = nn.TrainOneStepCell(nn.WithLossCell(net, nn.MSELoss()),
                               nn.SGD(net.trainable_params()))
    assert step.grad_reducer is None


def test_collectives_need_an_initialized_group(context):
    x = tandem.tensor(np.ones(3, np.float32))
    for call in (lambda: ops.AllReduce()(x), lambda: ops.AllGather()(x),
                 lambda: ops.Broadcast(0)((x,)),
                 lambda: nn.DistributedGradReducer(nn.Dense(2, 2).trainable_params()),
                 lambda: tandem.communication.get_local_rank()):
        with pytest.raises(RuntimeError, match="init|without MPI"):
            call()
    tandem.set_auto_parallel_context(parallel_mode=tandem.ParallelMode.DATA_PARALLEL)
    net = nn.Dense(3, 2)
    with pytest.raises(RuntimeError, match="init|without MPI"):
        nn.TrainOneStepCell(nn.WithLossCell(net, nn.MSELoss()), nn.SGD(net.trainable_params()))
    with pytest.raises(ValueError, match="PROD is not supported"):
        ops.AllReduce("prod")
    with pytest.raises(TypeError, match="ReduceOp"):
        ops.AllReduce(3)
    with pytest.raises(TypeError, match="group name"):
        ops.AllGather(group=3)
    with pytest.raises(RuntimeError, match="init|without MPI"):  # named groups need init too
        ops.AllGather(group="other")(x)
    with pytest.raises(ValueError, match="root_rank"):
        ops.Broadcast(-1)


def _rows(ds):
    return [int(r[0]) for r in ds.create_tuple_iterator()]


def _shard_order(n, shards, k):
    """MindSpore's split: ceil(n / shards) rows per shard, shard k at k, k + shards, ...
    wrapping to the start."""
    per = -(-n // shards)
    return [(i * shards + k) % n for i in range(per)]


@pytest.mark.parametrize("n,shards", [(10, 3), (12, 3), (7, 2), (2, 3), (5, 1)])
def test_shards_split_the_rows(n, shards):
    seen = []
    for k in range(shards):
        ds = NumpySlicesDataset(np.arange(n), column_names=["x"], shuffle=False,
                                num_shards=shards, shard_id=k)
        rows = _rows(ds)
        assert rows == _shard_order(n, shards, k)
        assert ds.get_dataset_size() == len(rows) == -(-n // shards)
        gen = GeneratorDataset(list(range(n)), column_names=["x"], shuffle=False,
                               num_shards=shards, shard_id=k)
        assert _rows(gen) == rows
        seen += rows
    assert set(seen) == set(range(n))


def test_shuffled_shards_agree_on_one_order_per_epoch():
    def epochs(k, count=2):
        ds = NumpySlicesDataset(np.arange(12), column_names=["x"], shuffle=True, num_shards=3,
                                shard_id=k)
        it = ds.create_tuple_iterator(num_epochs=count)
        return [[int(r[0]) for r in it] for _ in range(count)]

    shards = [epochs(k) for k in range(3)]
    for e in range(2):
        flat = [i for s in shards for i in s[e]]
        assert sorted(flat) == list(range(12))  # disjoint cover: one order split 3 ways
    assert [s[0] for s in shards] != [s[1] for s in shards]  # reshuffled each epoch
    assert epochs(1) == shards[1]  # the same in every process (a fixed seed)
    assert [s[0] for s in shards] != [_shard_order(12, 3, k) for k in range(3)]


def test_num_samples_counts_one_shard():
    ds = NumpySlicesDataset(np.arange(10), column_names=["x"], shuffle=False, num_shards=2,
                            shard_id=1, num_samples=3)
    assert _rows(ds) == [1, 3, 5] and ds.get_dataset_size() == 3
    batched = NumpySlicesDataset(np.arange(10), column_names=["x"], shuffle=False,
                                 num_shards=3, shard_id=0).batch(3)
    assert [b[0].numpy().tolist() for b in batched] == [[0, 3, 6], [9]]


def test_sharding_errors():
    data = np.arange(6)
    with pytest.raises(ValueError, match="given together"):
        NumpySlicesDataset(data, column_names=["x"], num_shards=2)
    with pytest.raises(ValueError, match="given together"):
        GeneratorDataset(list(data), column_names=["x"], shard_id=0)
    with pytest.raises(ValueError, match=r"shard_id must be in \[0, 1\]"):
        NumpySlicesDataset(data, column_names=["x"], num_shards=2, shard_id=2)
    with pytest.raises(ValueError, match="num_shards must be >= 1"):
        NumpySlicesDataset(data, column_names=["x"], num_shards=0, shard_id=0)
    with pytest.raises(TypeError, match="num_shards must be an int"):
        NumpySlicesDataset(data, column_names=["x"], num_shards=2.0, shard_id=0)
    with pytest.raises(ValueError, match="mutually exclusive"):
        NumpySlicesDataset(data, column_names=["x"], sampler=object(), num_shards=2,
                           shard_id=0)
    with pytest.raises(ValueError, match="random-access"):
        GeneratorDataset(lambda: iter(range(6)), column_names=["x"], num_shards=2, shard_id=0)
