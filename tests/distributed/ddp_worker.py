"""Run under mpirun by tests/python/test_distributed.py: DistributedDataParallel on N ranks
with a per-rank batch of B equals one process training on the global batch of N*B. Each
rank starts from different weights (DDP must broadcast rank 0's) and trains an MLP for a few
SGD steps; every rank also trains the single-process reference on the whole batch from rank
0's weights and compares. Prints 'OK <rank> <world> <max abs diff>'."""
import numpy as np

import tandem
from tandem import mint
import tandem.mint.distributed as dist

B, IN, HID, OUT, STEPS = 3, 5, 7, 2, 4


def mlp(seed):
    net = mint.nn.Sequential(mint.nn.Linear(IN, HID), mint.nn.Tanh(), mint.nn.Linear(HID, OUT))
    rng = np.random.default_rng(seed)
    net.load_state_dict({k: tandem.tensor(rng.standard_normal(v.shape).astype(np.float32))
                         for k, v in net.state_dict().items()})
    return net


def step(net, opt, x, y):
    opt.zero_grad()
    loss = mint.nn.functional.mse_loss(net(tandem.tensor(x)), tandem.tensor(y))
    loss.backward()
    opt.step()


def main():
    dist.init_process_group(backend="mpi")
    rank, world = dist.get_rank(), dist.get_world_size()
    data = np.random.default_rng(7)
    xs = data.standard_normal((STEPS, world * B, IN)).astype(np.float32)
    ys = data.standard_normal((STEPS, world * B, OUT)).astype(np.float32)

    ddp = mint.nn.parallel.DistributedDataParallel(mlp(seed=rank))
    ref = mlp(seed=0)
    for a, b in zip(ddp.module.state_dict().values(), ref.state_dict().values()):
        np.testing.assert_array_equal(a.numpy(), b.numpy())  # rank 0's weights everywhere
    opt = mint.optim.SGD(ddp.parameters(), lr=0.1)
    ref_opt = mint.optim.SGD(ref.parameters(), lr=0.1)
    for s in range(STEPS):
        mine = slice(rank * B, (rank + 1) * B)
        step(ddp, opt, xs[s, mine], ys[s, mine])
        step(ref, ref_opt, xs[s], ys[s])
    diff = 0.0
    for a, b in zip(ddp.module.state_dict().values(), ref.state_dict().values()):
        np.testing.assert_allclose(a.numpy(), b.numpy(), rtol=1e-5, atol=1e-6)
        diff = max(diff, float(np.abs(a.numpy() - b.numpy()).max()))
    moved = max(float(np.abs(a.numpy() - b.numpy()).max()) for a, b in
                zip(ref.state_dict().values(), mlp(seed=0).state_dict().values()))
    assert moved > 1e-3, "training did not change the weights"
    for as_view in (False, True):
        check_buckets_and_no_sync(rank, world, xs, ys, as_view)
    check_unused_parameter_raises()
    dist.destroy_process_group()
    print(f"OK {rank} {world} {diff:.2e}", flush=True)


def check_buckets_and_no_sync(rank, world, xs, ys, as_view):
    """Tiny buckets (one or two parameters each, reduced while backward still runs) and
    gradient accumulation: two micro-batches under no_sync, then one synchronised backward,
    equal one process accumulating all of them."""
    ddp = mint.nn.parallel.DistributedDataParallel(mlp(seed=rank + 10), bucket_cap_mb=1e-5,
                                                   gradient_as_bucket_view=as_view)
    assert len(ddp.reducer.buckets) >= 3, len(ddp.reducer.buckets)
    ref = mlp(seed=10)
    opt = mint.optim.SGD(ddp.parameters(), lr=0.1)
    ref_opt = mint.optim.SGD(ref.parameters(), lr=0.1)
    mine = slice(rank * B, (rank + 1) * B)
    for s in range(3):
        opt.zero_grad(set_to_none=s != 1)  # step 1 zeroes in place (into the bucket views)
        ref_opt.zero_grad()
        for micro in range(3):
            x, y = xs[(s + micro) % STEPS], ys[(s + micro) % STEPS]
            loss = mint.nn.functional.mse_loss(ddp(tandem.tensor(x[mine])),
                                               tandem.tensor(y[mine]))
            if micro < 2:
                with ddp.no_sync():
                    loss.backward()
            else:
                loss.backward()
            mint.nn.functional.mse_loss(ref(tandem.tensor(x)), tandem.tensor(y)).backward()
        assert ddp.reducer.last_reductions == len(ddp.reducer.buckets)
        if as_view:
            p0 = next(iter(ddp.parameters()))
            b0 = [b for b in ddp.reducer.buckets if any(q is p0 for q in b.params)][0]
            assert b0.buffer.data_ptr() <= p0.grad.data_ptr() < b0.buffer.data_ptr() + \
                b0.buffer.numel() * 4
        opt.step()
        ref_opt.step()
    for a, b in zip(ddp.module.state_dict().values(), ref.state_dict().values()):
        np.testing.assert_allclose(a.numpy(), b.numpy(), rtol=1e-5, atol=1e-6)


def check_unused_parameter_raises():
    """A parameter without a gradient raises at the end of backward (same on every rank here,
    so every rank raises and the job goes on)."""
    net = mint.nn.ModuleDict({"used": mint.nn.Linear(IN, OUT), "unused": mint.nn.Linear(IN, OUT)})
    ddp = mint.nn.parallel.DistributedDataParallel(net)
    out = ddp.module["used"](tandem.tensor(np.ones((2, IN), np.float32))).sum()
    try:
        out.backward()
        raise AssertionError("no error for an unused parameter")
    except RuntimeError as e:
        assert "produced no gradient for 2 parameter(s)" in str(e), e


if __name__ == "__main__":
    main()
