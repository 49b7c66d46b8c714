"""Run under mpirun by tests/python/test_distributed.py: asynchronous collectives (several in
flight, completed in program order), 16-bit float reductions, reduce_scatter, point-to-point
send/recv and sub-groups, each checked on every rank against numpy. Prints
'OK <rank> <world> <checks>'."""
import sys
import warnings

import numpy as np

import tandem
from tandem import mint
import tandem.mint.distributed as dist


def data(rank, shape, salt, dt=np.float32):
    return np.random.default_rng(1000 * rank + salt).standard_normal(shape).astype(dt)


def main():
    dist.init_process_group(backend="mpi")
    rank, world = dist.get_rank(), dist.get_world_size()
    checks = 0

    # Several async all_reduces in flight; a sync one after them sees them all done.
    shapes = [(5,), (3, 4), (1000,), (0,), (2, 3, 5)]
    inputs = [[data(r, s, i) for r in range(world)] for i, s in enumerate(shapes)]
    tensors = [tandem.tensor(inputs[i][rank].copy()) for i in range(len(shapes))]
    works = [dist.all_reduce(t, dist.ReduceOp.SUM, async_op=True) for t in tensors]
    assert all(isinstance(w, dist.Work) for w in works)
    tail = tandem.tensor(np.full(3, float(rank)))
    dist.all_reduce(tail, dist.ReduceOp.MAX)
    np.testing.assert_array_equal(tail.numpy(), [world - 1] * 3)
    assert all(w.is_completed() for w in works)
    for i, (t, w) in enumerate(zip(tensors, works)):
        assert w.wait() is True
        np.testing.assert_allclose(t.numpy(), np.stack(inputs[i]).sum(0), rtol=1e-5, atol=1e-5)
        checks += 1
    # Async broadcast / all_gather / barrier.
    b = tandem.tensor(data(rank, (4, 4), 50))
    wb = dist.broadcast(b, src=world - 1, async_op=True)
    outs = [mint.zeros(6) for _ in range(world)]
    wg = dist.all_gather(outs, tandem.tensor(np.full(6, rank, np.float32)), async_op=True)
    dist.barrier(async_op=True).wait()
    wb.wait()
    wg.wait()
    np.testing.assert_array_equal(b.numpy(), data(world - 1, (4, 4), 50))
    for r in range(world):
        np.testing.assert_array_equal(outs[r].numpy(), np.full(6, r, np.float32))
    checks += 2

    # bfloat16 / float16 reduce in float32: the result is the rounded float32 reduction.
    for dt, n in ((tandem.bfloat16, 33), (tandem.float16, 33), (tandem.bfloat16, 1000)):
        vals = [data(r, (n,), 70) for r in range(world)]
        rounded = [tandem.tensor(v).to(dt).float().numpy() for v in vals]
        for op, ref in ((dist.ReduceOp.SUM, np.sum), (dist.ReduceOp.AVG, np.mean),
                        (dist.ReduceOp.MAX, np.max)):
            t = tandem.tensor(vals[rank]).to(dt)
            dist.all_reduce(t, op)
            assert t.dtype == dt
            want = tandem.tensor(ref(np.stack(rounded), 0).astype(np.float32)).to(dt).float()
            np.testing.assert_array_equal(t.float().numpy(), want.numpy(), err_msg=str((dt, op)))
            checks += 1

    # reduce_scatter: rank r gets the sum over ranks of block r.
    blocks = [data(r, (world, 7), 90) for r in range(world)]
    out = mint.zeros(7)
    dist.reduce_scatter_tensor(out, tandem.tensor(blocks[rank].reshape(-1)))
    np.testing.assert_allclose(out.numpy(), np.stack(blocks).sum(0)[rank], rtol=1e-5, atol=1e-5)
    out2 = mint.zeros(7)
    dist.reduce_scatter(out2, [tandem.tensor(blocks[rank][i]) for i in range(world)],
                        op=dist.ReduceOp.MAX)
    np.testing.assert_array_equal(out2.numpy(), np.stack(blocks).max(0)[rank])
    gathered = mint.zeros(world, 3)
    dist.all_gather_into_tensor(gathered, tandem.tensor(np.full(3, rank, np.float32)))
    np.testing.assert_array_equal(gathered.numpy(), np.repeat(np.arange(world), 3).reshape(world, 3))
    checks += 3

    # Point to point: a ring, sync and async, and a mismatched size raising on the receiver.
    right, left = (rank + 1) % world, (rank - 1) % world
    msg = tandem.tensor(np.arange(5, dtype=np.int64) + 10 * rank)
    got = tandem.tensor(np.zeros(5, np.int64))
    if rank % 2 == 0:
        dist.send(msg, right)
        src = dist.recv(got, left)
    else:
        src = dist.recv(got, left)
        dist.send(msg, right)
    assert src == left
    np.testing.assert_array_equal(got.numpy(), np.arange(5) + 10 * left)
    recv_w = dist.irecv(got, tag=3)
    send_w = dist.isend(msg, right, tag=3)
    send_w.wait()
    recv_w.wait()
    assert recv_w.source_rank() == left
    checks += 2
    if world > 1:
        if rank == 0:
            dist.send(tandem.tensor(np.zeros(4, np.float32)), 1, tag=9)
        elif rank == 1:
            try:
                dist.recv(tandem.tensor(np.zeros(5, np.float32)), 0, tag=9)
                raise AssertionError("mismatched recv did not raise")
            except RuntimeError as e:
                assert "rank 0 sent 4 elements" in str(e), e
        checks += 1

    # Sub-groups: ranks {0, last} reduce among themselves; the others are not members.
    members = sorted({0, world - 1})
    sub = dist.new_group(members)
    if rank in members:
        assert dist.get_world_size(sub) == len(members)
        assert dist.get_rank(sub) == members.index(rank)
        t = tandem.tensor(np.full(2, rank + 1.0, np.float32))
        dist.all_reduce(t, group=sub)
        np.testing.assert_array_equal(t.numpy(), [sum(m + 1.0 for m in members)] * 2)
    else:
        assert sub is dist.GroupMember.NON_GROUP_MEMBER and dist.get_rank(sub) == -1
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            assert dist.all_reduce(mint.ones(2), group=sub) is None
        assert any("not a member" in str(w.message) for w in caught)
    checks += 1
    dist.barrier()
    print(f"OK {rank} {world} {checks}", flush=True)


if __name__ == "__main__":
    main()
    sys.exit(0)
