"""Launching test workers under mpirun: one environment for every multi-process test."""
import os
import pathlib
import shutil

import pytest

ROOT = pathlib.Path(__file__).resolve().parent.parent.parent
MPIRUN = shutil.which("mpirun")


def mpi_env(**extra: str) -> dict:
    """The test process's environment for child ranks: root allowed, oversubscription on,
    one thread per rank, this checkout's python/ first on PYTHONPATH, the build directory
    absolute (children may run elsewhere), and a 30 s operation timeout so that a hang
    fails with a message instead of running into the test's limit."""
    env = dict(os.environ, OMPI_ALLOW_RUN_AS_ROOT="1", OMPI_ALLOW_RUN_AS_ROOT_CONFIRM="1",
               OMPI_MCA_rmaps_base_oversubscribe="1", OMP_NUM_THREADS="1",
               TANDEM_DIST_TIMEOUT=os.environ.get("TANDEM_DIST_TIMEOUT", "30"))
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(ROOT / "python"),
                                                     os.environ.get("PYTHONPATH")]))
    if env.get("TANDEM_BUILD_DIR"):
        env["TANDEM_BUILD_DIR"] = str(pathlib.Path(env["TANDEM_BUILD_DIR"]).resolve())
    env.update(extra)
    return env


def _mpi_build() -> bool:
    import tandem.mint.distributed as dist
    return dist.is_available()


needs_mpi = pytest.mark.skipif(MPIRUN is None or not _mpi_build(),
                               reason="mpirun or tandem's MPI build is absent")
