"""Run under mpirun by tests/python/test_distributed.py: every collective on every dtype and
some odd sizes, checked on each rank against numpy computed from the ranks' known inputs.
Prints 'OK <rank> <world> <checks>' on success; any mismatch raises (non-zero exit)."""
import sys

import numpy as np

import tandem
from tandem import communication
import tandem.mint.distributed as dist

DTYPES = [np.float32, np.float64, np.int32, np.int64]
SIZES = [(1,), (7,), (3, 5), (2, 3, 17), (0,), (256,), (300,)]  # 256 float32: fused path's edge


def rank_data(rank, shape, dt, salt):
    rng = np.random.default_rng(1000 * rank + salt)
    if np.issubdtype(dt, np.integer):
        return rng.integers(-50, 50, size=shape).astype(dt)
    return rng.standard_normal(shape).astype(dt)


def main():
    assert not dist.is_initialized()
    dist.init_process_group(backend="mpi")
    assert dist.is_initialized()
    rank, world = dist.get_rank(), dist.get_world_size()
    assert communication.get_rank() == rank and communication.get_group_size() == world
    checks = 0
    for di, dt in enumerate(DTYPES):
        for si, shape in enumerate(SIZES):
            salt = 100 * di + si
            inputs = [rank_data(r, shape, dt, salt) for r in range(world)]
            stack = np.stack(inputs)
            ops = [(dist.ReduceOp.SUM, stack.sum(0)), (dist.ReduceOp.MAX, stack.max(0)),
                   (dist.ReduceOp.MIN, stack.min(0))]
            if not np.issubdtype(dt, np.integer):
                ops.append((dist.ReduceOp.AVG, stack.mean(0)))
            for op, want in ops:
                t = tandem.tensor(inputs[rank].copy())
                dist.all_reduce(t, op=op)
                got = t.numpy()
                assert got.dtype == dt and got.shape == shape, (op, got.dtype, got.shape)
                if np.issubdtype(dt, np.integer):
                    np.testing.assert_array_equal(got, want.astype(dt), err_msg=str(op))
                else:
                    np.testing.assert_allclose(got, want, rtol=1e-5 if dt == np.float32 else 1e-12,
                                               atol=1e-6, err_msg=str(op))
                checks += 1
            for src in range(world):
                t = tandem.tensor(inputs[rank].copy())
                dist.broadcast(t, src=src)
                np.testing.assert_array_equal(t.numpy(), inputs[src])
                checks += 1
            outs = [tandem.tensor(np.full(shape, -1, dtype=dt)) for _ in range(world)]
            dist.all_gather(outs, tandem.tensor(inputs[rank].copy()))
            for r in range(world):
                np.testing.assert_array_equal(outs[r].numpy(), inputs[r])
            checks += 1
    # bfloat16 moves as bytes through broadcast and all_gather.
    bf = tandem.tensor(np.arange(6, dtype=np.float32) * (rank + 1)).to(tandem.bfloat16)
    dist.broadcast(bf, src=world - 1)
    np.testing.assert_array_equal(bf.float().numpy(), np.arange(6, dtype=np.float32) * world)
    checks += 1
    dist.barrier()
    check_errors(rank, world)
    dist.destroy_process_group()
    assert not dist.is_initialized()
    print(f"OK {rank} {world} {checks}", flush=True)


def expect(exc, fragment, fn, *args, **kwargs):
    try:
        fn(*args, **kwargs)
    except exc as e:
        assert fragment in str(e), f"{fragment!r} not in {e}"
        return
    raise AssertionError(f"{fn.__name__} did not raise {exc.__name__}")


def check_errors(rank, world):
    # Local checks (no communication happens).
    base = tandem.tensor(np.zeros((4, 6), np.float32))
    expect(ValueError, "not contiguous", dist.all_reduce, base.t())
    expect(TypeError, "Bool", dist.all_reduce, base.to(tandem.bool_))
    expect(TypeError, "AVG needs a floating", dist.all_reduce,
           tandem.tensor(np.zeros(3, np.int32)), op=dist.ReduceOp.AVG)
    expect(ValueError, "not a rank", dist.broadcast, base, src=world)
    expect(ValueError, "group size", dist.all_gather, [base], base) if world > 1 else None
    expect(TypeError, "tandem Tensor", dist.all_reduce, np.zeros(3))
    # Ranks that disagree all raise the same error instead of hanging.
    t = tandem.tensor(np.zeros(3 + rank, np.float32))
    expect(RuntimeError, "ranks disagree", dist.all_reduce, t)
    expect(RuntimeError, "ranks disagree", dist.broadcast, base, src=rank)
    # Different reduce ops, for a small (fused) and a large tensor.
    for n in (4, 100_000):
        op = dist.ReduceOp.SUM if rank == 0 else dist.ReduceOp.MAX
        expect(RuntimeError, "different reduce ops", dist.all_reduce,
               tandem.tensor(np.zeros(n, np.float32)), op=op) if world > 1 else None
    # Ranks running different collectives at the same point raise too (no hang).
    if world > 1:
        if rank == 0:
            expect(RuntimeError, "different collectives", dist.barrier)
        else:
            expect(RuntimeError, "different collectives", dist.all_reduce, base)
    # The group still works afterwards.
    ok = tandem.tensor(np.ones(2, np.float64))
    dist.all_reduce(ok)
    np.testing.assert_array_equal(ok.numpy(), [world, world])


if __name__ == "__main__":
    main()
    sys.exit(0)
