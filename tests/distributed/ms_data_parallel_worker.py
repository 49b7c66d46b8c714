"""Run under mpirun by tests/python/test_data_parallel.py: the MindSpore face of data
parallelism on N ranks against one process. Checks ops.AllReduce / AllGather / Broadcast
against numpy (inputs unchanged), the auto-parallel context's checks, and that K steps of
(a) value_and_grad + nn.DistributedGradReducer + nn.SGD / nn.Momentum on an MLP and
(b) TrainOneStepCell under ParallelMode.DATA_PARALLEL on a LeNet, each rank on its share of
the batch (per-rank batch B), give the parameters one process gets on the global batch of
N*B, and so does (c) Model.train with each rank reading its dataset shard (num_shards,
shard_id), where ModelCheckpoint writes on rank 0 only (argv[1]: the checkpoint directory,
the same for every rank). Every rank also trains the single-process reference. Prints
'OK <rank> <world> <diff>'."""
import numpy as np

import tandem
from tandem import communication, nn, ops

B, STEPS = 3, 3


def fill(net, seed):
    """Deterministic weights from numpy (the same on every rank for the same seed)."""
    rng = np.random.default_rng(seed)
    net.load_state_dict({k: tandem.tensor(0.5 * rng.standard_normal(v.shape).astype(np.float32))
                         for k, v in net.state_dict().items()})
    return net


def mlp():
    return nn.SequentialCell(nn.Dense(5, 7), nn.Tanh(), nn.Dense(7, 3))


def lenet():
    return nn.SequentialCell(
        nn.Conv2d(1, 4, 5, pad_mode="pad", padding=2, has_bias=True), nn.Sigmoid(),
        nn.AvgPool2d(kernel_size=2, stride=2),
        nn.Conv2d(4, 6, 3, pad_mode="valid", has_bias=True), nn.Sigmoid(),
        nn.AvgPool2d(kernel_size=2, stride=2),
        nn.Flatten(), nn.Dense(6 * 2 * 2, 10), nn.Sigmoid(), nn.Dense(10, 4))


def weights(net):
    return [p.detach().numpy().copy() for p in net.trainable_params()]


def compare(got, want, what):
    diff = 0.0
    for a, b in zip(got, want):
        np.testing.assert_allclose(a, b, rtol=1e-5, atol=1e-5, err_msg=what)
        diff = max(diff, float(np.abs(a - b).max()))
    return diff


def check_collectives(rank, world):
    x = tandem.tensor(np.arange(6, dtype=np.float32).reshape(2, 3) * (rank + 1))
    before = x.numpy().copy()
    total = sum(np.arange(6, dtype=np.float32).reshape(2, 3) * (r + 1) for r in range(world))
    np.testing.assert_allclose(ops.AllReduce()(x).numpy(), total)
    np.testing.assert_allclose(ops.AllReduce(ops.ReduceOp.MAX)(x).numpy(),
                               np.arange(6).reshape(2, 3) * world)
    np.testing.assert_allclose(ops.AllReduce("min")(x).numpy(), np.arange(6).reshape(2, 3))
    gathered = ops.AllGather()(x).numpy()
    assert gathered.shape == (2 * world, 3)
    np.testing.assert_allclose(gathered, np.concatenate(
        [np.arange(6, dtype=np.float32).reshape(2, 3) * (r + 1) for r in range(world)]))
    (y,) = ops.Broadcast(world - 1)((x,))
    np.testing.assert_allclose(y.numpy(), np.arange(6).reshape(2, 3) * world)
    np.testing.assert_array_equal(x.numpy(), before)  # inputs are not changed
    try:
        ops.Broadcast(world)(x)
        raise AssertionError("Broadcast to a missing rank did not raise")
    except ValueError as e:
        assert "root_rank" in str(e)
    assert communication.get_local_rank() == rank  # one machine
    assert communication.get_local_rank_size() == world


def check_groups(rank, world):
    """create_group of the first and last rank: collectives on it involve only them; the
    rank maps and the errors."""
    members = sorted({0, world - 1})
    if rank in members:
        communication.create_group("ends", members)
        assert communication.get_group_size("ends") == len(members)
        assert communication.get_rank("ends") == members.index(rank)
        assert communication.get_world_rank_from_group_rank("ends", len(members) - 1) == world - 1
        assert communication.get_group_rank_from_world_rank(world - 1, "ends") == len(members) - 1
        x = tandem.tensor(np.full(3, rank + 1.0, np.float32))
        np.testing.assert_allclose(ops.AllReduce(group="ends")(x).numpy(),
                                   [sum(m + 1.0 for m in members)] * 3)
        traced = tandem.jit(lambda t: ops.AllGather(group="ends")(t))(x).numpy()
        np.testing.assert_allclose(traced, np.repeat([m + 1.0 for m in members], 3))
        reducer = nn.DistributedGradReducer([x], mean=True, group="ends")
        np.testing.assert_allclose(reducer((x,))[0].numpy(),
                                   [np.mean([m + 1.0 for m in members])] * 3)
        for bad, exc in [(lambda: communication.create_group("ends", members), ValueError),
                         (lambda: communication.create_group("dup", [rank, rank]), ValueError),
                         (lambda: communication.get_rank("nope"), ValueError)]:
            try:
                bad()
                raise AssertionError("no error")
            except exc:
                pass
        communication.destroy_group("ends")
    else:
        try:
            communication.create_group("ends", members)
            raise AssertionError("a non-member created the group")
        except ValueError as e:
            assert "not in rank_ids" in str(e), e
    communication_barrier()


def check_sampler(rank, world):
    """DistributedSampler takes rank and world size from the group; the ranks' shares,
    gathered, are one shuffled cover of the dataset."""
    from tandem.mint.utils.data.distributed import DistributedSampler
    s = DistributedSampler(range(12), seed=4)
    assert (s.rank, s.num_replicas) == (rank, world)
    s.set_epoch(2)
    mine = tandem.tensor(np.array(list(s), dtype=np.int64))
    everyone = ops.AllGather()(mine).numpy()
    assert sorted(everyone.tolist()) == list(range(12)), everyone


def check_context(world):
    tandem.reset_auto_parallel_context()
    assert tandem.get_auto_parallel_context("parallel_mode") == tandem.ParallelMode.STAND_ALONE
    assert tandem.get_auto_parallel_context("device_num") == world
    for bad, exc in [(dict(device_num=world + 1), ValueError),
                     (dict(parallel_mode=tandem.ParallelMode.SEMI_AUTO_PARALLEL),
                      NotImplementedError),
                     (dict(parallel_mode="model"), ValueError), (dict(nope=1), ValueError)]:
        try:
            tandem.set_auto_parallel_context(**bad)
            raise AssertionError(f"{bad} did not raise")
        except exc:
            pass
    # Collectives trace into graphs: a jit function and a GRAPH_MODE reducer give the eager
    # results.
    x = tandem.tensor(np.ones(3, np.float32) * (communication.get_rank() + 1))
    traced = tandem.jit(lambda t: ops.AllReduce()(t) * 2)
    for _ in range(2):  # compiled once, run twice: the reduction runs on every call
        np.testing.assert_allclose(traced(x).numpy(), [world * (world + 1)] * 3)
    gathered = tandem.jit(lambda t: ops.AllGather()(t) + 1)(x).numpy()
    np.testing.assert_allclose(gathered, np.repeat(np.arange(world) + 2.0, 3))
    net = fill(mlp(), 1)
    reducer = nn.DistributedGradReducer(net.trainable_params(), mean=True)
    grads = tuple(tandem.tensor(np.full(p.shape, 1.0 + communication.get_rank(), np.float32))
                  for p in net.trainable_params())
    tandem.set_context(mode=tandem.GRAPH_MODE)
    try:
        out = reducer(grads)
        np.testing.assert_allclose(out[0].numpy(), (world + 1) / 2)
        jitted = tandem.jit(lambda *g: reducer(g))(*grads)
        np.testing.assert_allclose(jitted[-1].numpy(), (world + 1) / 2)
    finally:
        tandem.set_context(mode=tandem.PYNATIVE_MODE)
        tandem.reset_auto_parallel_context()
    # The gradient of a traced all_reduce (SUM) is the all_reduce of the gradients.
    w = tandem.Parameter(tandem.tensor(np.full(2, 1.0, np.float32)), name="w")
    scale = float(communication.get_rank() + 1)
    loss = lambda: (ops.AllReduce()(w * scale) * scale).sum()  # noqa: E731
    _, (g,) = tandem.value_and_grad(loss, None, [w])()
    total = sum(r + 1.0 for r in range(world))
    np.testing.assert_allclose(g.numpy(), [scale * total] * 2)


def manual_steps(make_opt, xs, ys, rank, world, reduce):
    """K steps of the functional MindSpore loop; `reduce`: the data-parallel run."""
    net = fill(mlp(), 1)
    loss_fn = nn.MSELoss()
    opt = make_opt(net.trainable_params())
    grad_fn = tandem.value_and_grad(lambda x, y: loss_fn(net(x), y), None, opt.parameters)
    reducer = nn.DistributedGradReducer(opt.parameters, mean=True) if reduce else None
    for s in range(STEPS):
        x, y = (xs[s, rank * B:(rank + 1) * B], ys[s, rank * B:(rank + 1) * B]) if reduce \
            else (xs[s], ys[s])
        _, grads = grad_fn(tandem.tensor(x), tandem.tensor(y))
        if reducer is not None:
            grads = reducer(grads)
        opt(grads)
    return weights(net)


def one_step_cell_steps(xs, ys, rank, world, parallel, graph=False):
    tandem.reset_auto_parallel_context()
    if graph:
        tandem.set_context(mode=tandem.GRAPH_MODE)
    if parallel:
        tandem.set_auto_parallel_context(parallel_mode=tandem.ParallelMode.DATA_PARALLEL,
                                         gradients_mean=True, device_num=world,
                                         parameter_broadcast=True)
    net = fill(lenet(), 2 + (rank if parallel else 0))  # rank 0's weights reach every rank
    loss = nn.SoftmaxCrossEntropyWithLogits(sparse=True, reduction="mean")
    opt = nn.Momentum(net.trainable_params(), learning_rate=0.5, momentum=0.9)
    step = nn.TrainOneStepCell(nn.WithLossCell(net, loss), opt)
    assert (step.grad_reducer is not None) == parallel
    for s in range(STEPS):
        mine = slice(rank * B, (rank + 1) * B) if parallel else slice(None)
        step(tandem.tensor(xs[s, mine]), tandem.tensor(ys[s, mine]))
    tandem.reset_auto_parallel_context()
    tandem.set_context(mode=tandem.PYNATIVE_MODE)
    return weights(net)


def model_train(ims, labels, rank, world, parallel, ckpt_dir):
    """Model.train for one epoch of STEPS batches: on N ranks each reads its shard of an
    unshuffled NumpySlicesDataset in batches of B (shard k holds rows k, k + N, ..., so the
    ranks' step-s batches together are the global batch s of N * B rows); in one process the
    whole dataset in batches of N * B. ModelCheckpoint writes on rank 0 only."""
    tandem.reset_auto_parallel_context()
    if parallel:
        tandem.set_auto_parallel_context(parallel_mode=tandem.ParallelMode.DATA_PARALLEL,
                                         gradients_mean=True)
    data = (ims.reshape(-1, 1, 12, 12), labels.reshape(-1))
    shard = dict(num_shards=world, shard_id=rank) if parallel else {}
    dataset = tandem.dataset.NumpySlicesDataset(data, column_names=["image", "label"],
                                                shuffle=False, **shard)
    dataset = dataset.batch(B if parallel else world * B)
    assert dataset.get_dataset_size() == STEPS
    net = fill(lenet(), 3)
    opt = nn.SGD(net.trainable_params(), learning_rate=0.5)
    model = tandem.train.Model(net, nn.SoftmaxCrossEntropyWithLogits(sparse=True,
                                                                       reduction="mean"), opt)
    cbs = []
    if parallel:
        # a directory per rank, so that a write by any rank but 0 would show
        cbs.append(tandem.train.ModelCheckpoint(prefix="dp", directory=f"{ckpt_dir}/r{rank}"))
    model.train(1, dataset, callbacks=cbs)
    tandem.reset_auto_parallel_context()
    return weights(net)


def check_checkpoints(ckpt_dir, rank, world):
    import os
    communication_barrier()
    # rank 0 wrote every step's checkpoint (keep_checkpoint_max=5 >= STEPS); no other rank did
    assert sorted(os.listdir(ckpt_dir)) == ["r0"], os.listdir(ckpt_dir)
    files = sorted(os.listdir(f"{ckpt_dir}/r0"))
    assert files == [f"dp-1_{s}.ckpt" for s in range(1, STEPS + 1)], (rank, files)


def communication_barrier():
    import tandem.mint.distributed as dist
    dist.barrier()


def main():
    communication.init()
    rank, world = communication.get_rank(), communication.get_group_size()
    check_collectives(rank, world)
    check_sampler(rank, world)
    check_groups(rank, world)
    check_context(world)
    data = np.random.default_rng(11)
    xs = data.standard_normal((STEPS, world * B, 5)).astype(np.float32)
    ys = data.standard_normal((STEPS, world * B, 3)).astype(np.float32)
    diff = 0.0
    for name, make_opt in [("SGD", lambda p: nn.SGD(p, learning_rate=0.3)),
                           ("Momentum", lambda p: nn.Momentum(p, learning_rate=0.2,
                                                              momentum=0.9))]:
        got = manual_steps(make_opt, xs, ys, rank, world, reduce=True)
        want = manual_steps(make_opt, xs, ys, rank, world, reduce=False)
        diff = max(diff, compare(got, want, name))
        moved = max(float(np.abs(a - b).max()) for a, b in zip(want, weights(fill(mlp(), 1))))
        assert moved > 1e-3, f"{name}: training did not change the weights"
    ims = data.standard_normal((STEPS, world * B, 1, 12, 12)).astype(np.float32)
    labels = data.integers(0, 4, (STEPS, world * B)).astype(np.int32)
    got = one_step_cell_steps(ims, labels, rank, world, parallel=True)
    want = one_step_cell_steps(ims, labels, rank, world, parallel=False)
    diff = max(diff, compare(got, want, "TrainOneStepCell LeNet"))
    got = one_step_cell_steps(ims, labels, rank, world, parallel=True, graph=True)
    diff = max(diff, compare(got, want, "TrainOneStepCell LeNet, GRAPH_MODE"))
    import sys
    ckpt_dir = sys.argv[1]
    got = model_train(ims, labels, rank, world, True, ckpt_dir)
    want = model_train(ims, labels, rank, world, False, ckpt_dir)
    diff = max(diff, compare(got, want, "Model.train on dataset shards"))
    check_checkpoints(ckpt_dir, rank, world)
    communication.release()
    print(f"OK {rank} {world} {diff:.2e}", flush=True)


if __name__ == "__main__":
    main()
