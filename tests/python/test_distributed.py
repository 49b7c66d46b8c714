"""mint.distributed / tandem.communication over MPI: tests/distributed/collectives_worker.py
runs under ``mpirun -n 2`` and ``-n 3`` and checks every collective against numpy on every
rank; ddp_worker.py checks DistributedDataParallel against one process on the global batch. Skips where mpirun or tandem's MPI build is absent; every launch has a timeout."""
import os
import pathlib
import re
import subprocess
import sys
import time

import pytest
from mpi_util import MPIRUN, mpi_env, needs_mpi

import tandem
import tandem.mint.distributed as dist

HERE = pathlib.Path(__file__).parent
WORKER = HERE.parent / "distributed" / "collectives_worker.py"
DDP_WORKER = HERE.parent / "distributed" / "ddp_worker.py"
ASYNC_WORKER = HERE.parent / "distributed" / "async_worker.py"
FAILURE_WORKER = HERE.parent / "distributed" / "failure_worker.py"


def _mpirun(n, script, *args):
    cmd = [MPIRUN, "--oversubscribe", "--allow-run-as-root", "-n", str(n), sys.executable,
           str(script), *args]
    return subprocess.run(cmd, capture_output=True, text=True, env=mpi_env(), timeout=60)


@needs_mpi
@pytest.mark.parametrize("n", [2, 3])
def test_collectives_match_numpy(n):
    r = _mpirun(n, WORKER)
    assert r.returncode == 0, r.stdout + r.stderr
    # mpirun interleaves the ranks' output, so the lines are found, not split.
    oks = sorted(re.findall(r"OK (\d+) (\d+) \d+", r.stdout))
    assert oks == [(str(i), str(n)) for i in range(n)], r.stdout + r.stderr


@needs_mpi
@pytest.mark.parametrize("n", [2, 3])
def test_async_half_reduce_scatter_p2p_and_groups_match_numpy(n):
    r = _mpirun(n, ASYNC_WORKER)
    assert r.returncode == 0, r.stdout + r.stderr
    oks = sorted(re.findall(r"OK (\d+) (\d+) \d+", r.stdout))
    assert oks == [(str(i), str(n)) for i in range(n)], r.stdout + r.stderr


@needs_mpi
@pytest.mark.parametrize("n", [2, 3])
def test_ddp_matches_single_process_on_the_global_batch(n):
    r = _mpirun(n, DDP_WORKER)
    assert r.returncode == 0, r.stdout + r.stderr
    oks = sorted(re.findall(r"OK (\d+) (\d+) ", r.stdout))
    assert oks == [(str(i), str(n)) for i in range(n)], r.stdout + r.stderr


def test_ddp_needs_an_initialized_group():
    with pytest.raises(RuntimeError, match="init_process_group|without MPI"):
        tandem.mint.nn.parallel.DistributedDataParallel(tandem.mint.nn.Linear(2, 2))


@needs_mpi
def test_single_process_is_a_world_of_one():
    """Without mpirun a script still runs: MPI starts as a singleton of one rank."""
    code = ("import numpy as np, tandem, tandem.mint.distributed as d\n"
            "d.init_process_group('mpi')\n"
            "t = tandem.tensor(np.arange(4, dtype=np.float32))\n"
            "d.all_reduce(t, op=d.ReduceOp.AVG); d.broadcast(t, 0); d.barrier()\n"
            "outs = [tandem.zeros(4)]; d.all_gather(outs, t)\n"
            "assert (outs[0].numpy() == np.arange(4)).all()\n"
            "print(d.get_rank(), d.get_world_size(), tandem.communication.get_group_size())\n")
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=mpi_env(),
                       timeout=60)
    assert r.returncode == 0, r.stdout + r.stderr
    assert r.stdout.split() == ["0", "1", "1"], r.stdout


def test_collectives_before_init_raise():
    assert not dist.is_initialized()
    with pytest.raises(RuntimeError, match="init_process_group|without MPI"):
        dist.all_reduce(tandem.zeros(3))
    with pytest.raises(RuntimeError, match="init_process_group|without MPI"):
        dist.get_rank()
    with pytest.raises(ValueError, match="backend"):
        dist.init_process_group(backend="nccl")
    with pytest.raises(RuntimeError, match="init_process_group|without MPI"):
        tandem.communication.get_rank("other")
    with pytest.raises(RuntimeError, match="init_process_group|without MPI"):
        tandem.communication.create_group("g", [0])


def _alive(token):
    """Processes whose command line carries token (the ranks of one launch)."""
    r = subprocess.run(["pgrep", "-f", token], capture_output=True, text=True)
    return [p for p in r.stdout.split() if int(p) != os.getpid()]


@needs_mpi
@pytest.mark.parametrize("mode,message,timeout", [
    ("raise", "uncaught ValueError; ending the job", 4),
    # A rank that exits with the group alive is noticed by the others at once, not after the
    # watchdog's timeout (set far beyond the test's limit here).
    ("exit", "all_reduce of a float32 tensor of shape [1000] can never complete: rank 2 has "
     "exited after 1 collective(s) on this group, and this is collective 2", 600),
    ("return", "rank 2 has exited after 1 collective(s)", 600),
    ("kill", "signal 9", 4),
    # The report names the synchronous collective (its description is formatted only then).
    ("hang", "all_reduce of a float32 tensor of shape [1000] has not completed after", 4),
])
def test_a_failing_rank_ends_every_rank_with_a_message(mode, message, timeout):
    token = f"tandem-failure-{mode}-{os.getpid()}"
    env = dict(mpi_env(), TANDEM_DIST_TIMEOUT=str(timeout))
    cmd = [MPIRUN, "--oversubscribe", "--allow-run-as-root", "-n", "3", sys.executable,
           str(FAILURE_WORKER), mode, token]
    start = time.monotonic()
    r = subprocess.run(cmd, capture_output=True, text=True, env=env, timeout=90)
    elapsed = time.monotonic() - start
    out = r.stdout + r.stderr
    assert r.returncode != 0, out
    assert "UNEXPECTED" not in out, out
    assert message in out, out
    # Well within the test's limit: the failure is detected, not waited out (hang: the
    # 4 s watchdog plus start-up).
    assert elapsed < 60, (elapsed, out)
    time.sleep(0.5)
    assert _alive(token) == [], f"ranks left running: {_alive(token)}"
