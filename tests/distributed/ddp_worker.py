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
    dist.destroy_process_group()
    print(f"OK {rank} {world} {diff:.2e}", flush=True)


if __name__ == "__main__":
    main()
