"""``python -m tandem.run -n N script.py [args...]``: starts a data-parallel job of N ranks on
this machine with mpirun, each running ``script.py args...`` under this Python interpreter
(so a virtual environment carries over). Each rank calls ``init_process_group('mpi')``
(``mint.distributed``) or ``communication.init()``.

mpirun gets ``--oversubscribe`` when N exceeds the CPUs this process may use (Open MPI
otherwise refuses to start more ranks than slots) and ``--allow-run-as-root`` only when
running as root. The exit status is mpirun's (128 + the signal when a signal ended it);
SIGINT (Ctrl-C), SIGTERM and SIGHUP sent to the launcher are passed on to mpirun, which
passes them on to the ranks."""
from __future__ import annotations

import argparse
import os
import shutil
import signal
import subprocess
import sys
from typing import List, Optional, Sequence

__all__ = ["main", "mpirun_command"]

_FORWARDED = (signal.SIGINT, signal.SIGTERM, signal.SIGHUP)


def _cpus() -> int:
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # not on Linux
        return os.cpu_count() or 1


def mpirun_command(nproc: int, script: str, args: Sequence[str] = (),
                   mpirun: Optional[str] = None, module: bool = False) -> List[str]:
    """The mpirun command line that starts `nproc` ranks of `script`.

    Args:
        nproc (int): the number of ranks (>= 1).
        script (str): the Python file to run (a module name when `module`).
        args (Sequence[str]): the script's arguments. Default: ``()``.
        mpirun (str, optional): the mpirun executable; found on PATH when None.
            Default: ``None``.
        module (bool): run `script` as ``python -m script``. Default: ``False``.

    Returns:
        list[str], the command.

    Raises:
        ValueError: `nproc` is below 1.
        FileNotFoundError: there is no mpirun.
    """
    if int(nproc) < 1:
        raise ValueError(f"tandem.run: -n must be >= 1, got {nproc}")
    exe = mpirun or shutil.which("mpirun")
    if exe is None or shutil.which(exe) is None:
        raise FileNotFoundError(
            f"tandem.run: mpirun {'(' + exe + ') ' if exe else ''}was not found; install an MPI "
            "implementation (Debian: apt-get install openmpi-bin libopenmpi-dev) or pass "
            "--mpirun /path/to/mpirun")
    cmd = [exe, "-n", str(int(nproc))]
    if int(nproc) > _cpus():
        cmd.append("--oversubscribe")
    if hasattr(os, "geteuid") and os.geteuid() == 0:
        cmd.append("--allow-run-as-root")
    cmd += [sys.executable, *(["-m"] if module else []), script, *args]
    return cmd


def main(argv: Optional[Sequence[str]] = None) -> int:
    """Parses ``-n N [--mpirun PATH] [-m] script [args...]``, runs the job and returns its
    exit status.

    Args:
        argv (Sequence[str], optional): the arguments (``sys.argv[1:]`` when None).
            Default: ``None``.

    Returns:
        int, the job's exit status.
    """
    parser = argparse.ArgumentParser(
        prog="python -m tandem.run",
        description="Run a tandem script as an N-rank data-parallel job with mpirun.")
    parser.add_argument("-n", "--nproc", type=int, required=True, help="number of ranks")
    parser.add_argument("--mpirun", default=None, help="mpirun executable (default: on PATH)")
    parser.add_argument("-m", dest="module", action="store_true",
                        help="run the target as a module (python -m)")
    parser.add_argument("script", help="the script (or module with -m)")
    parser.add_argument("args", nargs=argparse.REMAINDER, help="the script's arguments")
    opts = parser.parse_args(argv)
    try:
        cmd = mpirun_command(opts.nproc, opts.script, opts.args, opts.mpirun, opts.module)
    except (ValueError, FileNotFoundError) as e:
        print(e, file=sys.stderr)
        return 2
    proc = subprocess.Popen(cmd)

    def forward(signum: int, _frame: object) -> None:
        if proc.poll() is None:
            proc.send_signal(signum)

    previous = {s: signal.signal(s, forward) for s in _FORWARDED}
    try:
        code = proc.wait()
    finally:
        for s, h in previous.items():
            signal.signal(s, h)
    return 128 - code if code < 0 else code


if __name__ == "__main__":
    sys.exit(main())
