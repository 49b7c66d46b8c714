"""DistributedSampler against torch.utils.data.distributed.DistributedSampler (the oracle):
exact indices without shuffle, and for shuffle the properties PyTorch guarantees (the
permutation itself is numpy's). The sampler under mpirun is in tests/distributed/
data_parallel_worker.py (run by test_data_parallel.py)."""
import numpy as np
import pytest
import torch.utils.data.distributed as tdist

import tandem
from tandem.mint.utils.data import DataLoader, TensorDataset
from tandem.mint.utils.data.distributed import DistributedSampler


@pytest.mark.parametrize("n", [0, 1, 2, 7, 9, 10, 12])
@pytest.mark.parametrize("replicas", [1, 2, 3, 4])
@pytest.mark.parametrize("drop_last", [False, True])
def test_unshuffled_indices_match_torch(n, replicas, drop_last):
    data = list(range(n))
    for rank in range(replicas):
        ours = DistributedSampler(data, replicas, rank, shuffle=False, drop_last=drop_last)
        ref = tdist.DistributedSampler(data, replicas, rank, shuffle=False, drop_last=drop_last)
        assert list(ours) == list(ref), (n, replicas, rank, drop_last)
        assert len(ours) == len(ref) == len(list(ours))
        assert ours.total_size == ref.total_size


@pytest.mark.parametrize("n,replicas", [(12, 3), (10, 3), (7, 2), (2, 3)])
@pytest.mark.parametrize("drop_last", [False, True])
def test_shuffled_shares_cover_the_dataset_disjointly(n, replicas, drop_last):
    data = list(range(n))

    def shares(epoch, seed=0):
        out = []
        for r in range(replicas):
            s = DistributedSampler(data, replicas, r, shuffle=True, seed=seed,
                                   drop_last=drop_last)
            s.set_epoch(epoch)
            out.append(list(s))
        return out

    e0 = shares(0)
    ref_len = len(tdist.DistributedSampler(data, replicas, 0, drop_last=drop_last))
    assert all(len(s) == ref_len for s in e0)
    flat = [i for s in e0 for i in s]
    if n % replicas == 0 or drop_last:
        assert len(set(flat)) == len(flat)  # disjoint
    if not drop_last:
        assert set(flat) == set(data)  # a cover (padding repeats indices)
    assert shares(0) == e0  # deterministic: the same on every rank for the same epoch
    if n >= 7:
        assert shares(1) != e0  # a new order each epoch
        assert shares(0, seed=5) != e0


def test_rank_out_of_range_and_bad_replicas():
    with pytest.raises(ValueError, match=r"invalid rank 3.*\[0, 2\]"):
        DistributedSampler(range(5), num_replicas=3, rank=3)
    with pytest.raises(ValueError, match="invalid rank -1"):
        DistributedSampler(range(5), num_replicas=3, rank=-1)
    with pytest.raises(ValueError, match="num_replicas"):
        DistributedSampler(range(5), num_replicas=0, rank=0)


def test_defaults_need_an_initialized_group():
    with pytest.raises(RuntimeError, match="init_process_group|without MPI"):
        DistributedSampler(range(5))


def test_drives_a_dataloader():
    x = np.arange(20, dtype=np.float32).reshape(10, 2)
    ds = TensorDataset(tandem.tensor(x), tandem.tensor(np.arange(10)))
    s = DistributedSampler(ds, num_replicas=3, rank=1, shuffle=True, seed=3)
    dl = DataLoader(ds, batch_size=2, sampler=s)
    assert len(dl) == 2
    for epoch in range(2):
        s.set_epoch(epoch)
        labels = [int(v) for _, y in dl for v in y.numpy()]
        assert labels == list(s)
    assert tandem.utils.data.DistributedSampler is DistributedSampler
