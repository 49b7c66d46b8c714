"""Run under mpirun by tests/python/test_distributed.py: one rank fails in a given way while
the others are in (or about to enter) a collective; every rank must end, with a message
saying why, long before the test's timeout. argv: mode token. Modes: raise (an uncaught
exception), exit (sys.exit(3) without an exception), return (the script ends normally on
that rank, one collective short), kill (SIGKILL), hang (never enters the collective; the
others' watchdog ends the job after TANDEM_DIST_TIMEOUT)."""
import os
import signal
import sys
import time

import numpy as np

import tandem
import tandem.mint.distributed as dist


def main():
    mode = sys.argv[1]
    dist.init_process_group(backend="mpi")
    rank, world = dist.get_rank(), dist.get_world_size()
    t = tandem.tensor(np.ones(1000, np.float32))
    dist.all_reduce(t)  # everyone is up
    victim = world - 1
    if rank == victim:
        time.sleep(0.5)  # let the others enter the next collective first
        if mode == "raise":
            raise ValueError(f"rank {rank} failed on purpose")
        if mode == "exit":
            sys.exit(3)
        if mode == "return":
            return
        if mode == "kill":
            os.kill(os.getpid(), signal.SIGKILL)
        if mode == "hang":
            time.sleep(120)
    dist.all_reduce(t)
    print(f"UNEXPECTED {rank} finished", flush=True)


if __name__ == "__main__":
    main()
