"""python -m tandem.run: starts N ranks under this interpreter with the right mpirun flags,
forwards the exit status and SIGINT, and says clearly when mpirun is missing."""
import os
import pathlib
import shutil
import signal
import subprocess
import sys
import time

import pytest

from mpi_util import mpi_env
from tandem.run import mpirun_command

ROOT = pathlib.Path(__file__).parent.parent.parent
MPIRUN = shutil.which("mpirun")
needs_mpirun = pytest.mark.skipif(MPIRUN is None, reason="mpirun is absent")

# mpirun interleaves the ranks' output by characters, so each rank reports in its own file.
SCRIPT = """import os, pathlib, sys, time
rank = int(os.environ["OMPI_COMM_WORLD_RANK"])
out = pathlib.Path(__file__).parent / f"rank{rank}.txt"
out.write_text(" ".join([os.environ["OMPI_COMM_WORLD_SIZE"], sys.executable, *sys.argv[1:]]))
if sys.argv[1:] == ["sleep"]:
    time.sleep(60)
sys.exit(3 if sys.argv[1:] == ["fail"] and rank == 1 else 0)
"""


def _env(**extra):
    return mpi_env(**extra)


def _launch(tmp_path, *args, env=None):
    script = tmp_path / "tiny.py"
    script.write_text(SCRIPT)
    return [sys.executable, "-m", "tandem.run", "-n", "3", str(script), *args], env or _env()


@needs_mpirun
def test_runs_n_ranks_under_this_interpreter(tmp_path):
    cmd, env = _launch(tmp_path, "a", "--b")
    r = subprocess.run(cmd, capture_output=True, text=True, env=env, timeout=60)
    assert r.returncode == 0, r.stdout + r.stderr
    for i in range(3):
        assert (tmp_path / f"rank{i}.txt").read_text() == f"3 {sys.executable} a --b"


@needs_mpirun
def test_exit_status_is_forwarded(tmp_path):
    cmd, env = _launch(tmp_path, "fail")
    r = subprocess.run(cmd, capture_output=True, text=True, env=env, timeout=60)
    assert r.returncode == 3, r.stdout + r.stderr


@needs_mpirun
def test_sigint_stops_the_job(tmp_path):
    cmd, env = _launch(tmp_path, "sleep")
    p = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=env)
    try:
        deadline = time.monotonic() + 30
        while not all((tmp_path / f"rank{i}.txt").exists() for i in range(3)):  # all up
            assert p.poll() is None, "the job ended before its ranks started"
            assert time.monotonic() < deadline, "the ranks did not start"
            time.sleep(0.1)
        t0 = time.monotonic()
        p.send_signal(signal.SIGINT)
        code = p.wait(timeout=30)
        assert code != 0
        assert time.monotonic() - t0 < 30
    finally:
        if p.poll() is None:
            p.kill()
            p.wait()


def test_missing_mpirun_is_a_clear_error(tmp_path):
    cmd, env = _launch(tmp_path, env=_env(PATH=str(tmp_path)))  # no mpirun on PATH
    r = subprocess.run(cmd, capture_output=True, text=True, env=env, timeout=60)
    assert r.returncode == 2
    assert "mpirun" in r.stderr and "not found" in r.stderr and "openmpi" in r.stderr
    with pytest.raises(FileNotFoundError, match="mpirun"):
        mpirun_command(2, "x.py", mpirun=str(tmp_path / "nope"))


@needs_mpirun
def test_flags_follow_the_cpu_count_and_the_user():
    few = mpirun_command(1, "x.py", ["--y"])
    many = mpirun_command(os.cpu_count() * 4 + 1, "x.py")
    assert "--oversubscribe" not in few and "--oversubscribe" in many
    assert ("--allow-run-as-root" in few) == (os.geteuid() == 0)
    assert few[-3:] == [sys.executable, "x.py", "--y"]
    assert mpirun_command(2, "pkg.mod", module=True)[-3:] == [sys.executable, "-m", "pkg.mod"]
    with pytest.raises(ValueError, match="-n must be >= 1"):
        mpirun_command(0, "x.py")
