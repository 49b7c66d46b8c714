"""Samplers (MindSpore's mindspore.dataset samplers): which source rows a dataset reads, and
in which order.

A sampler turns into index operations of the pipeline (see _pipeline), evaluated by the
order function of _engine once per epoch: the built-in samplers reuse shuffle / shard /
take / skip / subset (the same machinery as a source's shuffle, num_shards and
num_samples arguments); the others add a "sample" operation whose draw function gets the
epoch's rows and a generator seeded from the pipeline's seed (dataset.config.set_seed, or
tandem's global generator) and returns the positions to read.
"""
from __future__ import annotations

import numbers
from typing import (Any, Callable, Dict, Iterable, Iterator, List, Optional, Sequence, Tuple,
                    Union, cast)

import numpy as np

from ._config import get_seed
from ._pipeline import _Op, _Source

__all__ = ["Sampler", "IterSampler", "SequentialSampler", "RandomSampler", "SubsetSampler",
           "SubsetRandomSampler", "PKSampler", "DistributedSampler", "WeightedRandomSampler"]

# The shuffle seed of a sharded source when dataset.config.set_seed was not called: the
# shards must agree on the order they split, so it cannot be drawn per process (MindSpore's
# default seed).
_SHARD_SEED = 5489
#: A draw function: (the epoch's source rows, generator, epoch from 0) -> positions into them.
Draw = Callable[[np.ndarray, np.random.Generator, int], np.ndarray]


def shard_seed() -> int:
    """The seed every shard shuffles with: dataset.config.set_seed's, or a fixed one."""
    configured = get_seed()
    return _SHARD_SEED if configured is None else configured


def shard_positions(n: int, num_shards: int, shard_id: int, offset: int = -1) -> np.ndarray:
    """MindSpore's split of n rows over shards. Without an offset every shard gets
    ceil(n / num_shards) rows, shard k the positions k, k + num_shards, ..., wrapping to the
    start for the last ones; with an offset (a concatenation's DistributedSampler), shard k
    reads the positions k - offset, k - offset + num_shards, ... that lie in [0, n)."""
    if n == 0:
        return np.zeros(0, dtype=np.int64)
    if offset >= 0:
        pos = np.arange(shard_id - offset, n, num_shards, dtype=np.int64)
        return pos[pos >= 0]
    per = -(-n // num_shards)
    return (np.arange(per, dtype=np.int64) * num_shards + shard_id) % n


def shuffle_shard_take(n: int, shuffle: bool, shard: Optional[Tuple[int, int, int]],
                       num_samples: Optional[int]) -> Tuple[List[_Op], int]:
    """The index operations of a shuffle, a shard (num_shards, shard_id, offset) and at most
    num_samples rows (0 or ``None``: all), and the rows they give. A sharded shuffle uses
    shard_seed(), so that every shard splits the same order."""
    ops: List[_Op] = []
    if shuffle:
        args: Dict[str, Any] = {"buffer": max(n, 2)}
        if shard is not None:
            args["seed"] = shard_seed()
        ops.append(("shuffle", args))
    count = n
    if shard is not None:
        ops.append(("shard", {"num_shards": shard[0], "shard_id": shard[1], "offset": shard[2]}))
        count = len(shard_positions(n, *shard))
    if num_samples and num_samples < count:
        ops.append(("take", {"count": num_samples}))
        count = num_samples
    return ops, count


def _check_int(v: Any, what: str, exc: type = TypeError) -> int:
    if isinstance(v, bool) or not isinstance(v, (int, np.integer)):
        raise exc(f"{what} must be an int, got {v!r}")
    return int(v)


def _check_num_samples(num_samples: Optional[int], name: str) -> Optional[int]:
    if num_samples is None:
        return None
    n = _check_int(num_samples, f"{name}: num_samples")
    if n < 0:
        raise ValueError(f"{name}: num_samples must be >= 0 (0: all), got {n}")
    return n


def _check_bool(v: Any, what: str) -> bool:
    if not isinstance(v, bool):
        raise TypeError(f"{what} must be a bool, got {v!r}")
    return v


def _count(num_samples: Optional[int], n: int) -> int:
    """MindSpore's rule: 0 / None, or more than there are, means all n."""
    return n if not num_samples or num_samples > n else num_samples


def _check_positions(pos: np.ndarray, n: int, name: str) -> np.ndarray:
    bad = pos[(pos < 0) | (pos >= n)]
    if len(bad):
        raise IndexError(f"{name}: index {int(bad[0])} is out of range for a dataset of "
                         f"{n} rows")
    return pos


class BuiltinSampler:
    """The base of the samplers (MindSpore's BuiltinSampler).

    Args:
        num_samples (int, optional): the most rows to read (``None`` or 0: all).
            Default: ``None`` .
    """

    _always_shuffled = False

    def __init__(self, num_samples: Optional[int] = None) -> None:
        self.num_samples = _check_num_samples(num_samples, type(self).__name__)
        self.child_sampler: Optional[BuiltinSampler] = None

    def add_child(self, sampler: "BuiltinSampler") -> None:
        """Adds a child sampler: this sampler then samples from the rows the child gives.

        Args:
            sampler (BuiltinSampler): the child.
        """
        if not isinstance(sampler, BuiltinSampler):
            raise TypeError(f"add_child: sampler must be a sampler, got {sampler!r}")
        if self.child_sampler is not None:
            raise RuntimeError("add_child: this sampler already has a child")
        self.child_sampler = sampler

    def get_child(self) -> Optional["BuiltinSampler"]:
        """The child sampler.

        Returns:
            BuiltinSampler, the child (``None`` when there is none).
        """
        return self.child_sampler

    def get_num_samples(self) -> Optional[int]:
        """num_samples, combined with the child's as MindSpore does (the smaller of the two
        when both are set).

        Returns:
            int, the number of rows, or ``None`` when neither sets one.
        """
        child = self.child_sampler.get_num_samples() if self.child_sampler else None
        if self.num_samples is not None and child is not None:
            return min(self.num_samples, child)
        return self.num_samples if self.num_samples is not None else child

    def is_shuffled(self) -> bool:
        """Whether the sampler reads the rows in a random order (RandomSampler,
        SubsetRandomSampler and WeightedRandomSampler always do; the others follow their
        child, else their shuffle argument).

        Returns:
            bool, ``True`` for a random order.
        """
        if self._always_shuffled:
            return True
        if self.child_sampler is not None:
            return self.child_sampler.is_shuffled()
        return bool(getattr(self, "shuffle", False))

    def is_sharded(self) -> bool:
        """Whether the sampler reads one shard of the rows (a DistributedSampler with more
        than one shard, or a sampler whose child does).

        Returns:
            bool, ``True`` when sharded.
        """
        if self.child_sampler is not None:
            return self.child_sampler.is_sharded()
        return int(getattr(self, "num_shards", 1)) > 1

    # ---- internals --------------------------------------------------------------------------
    def _ops(self, n: int, src: _Source) -> Tuple[List[_Op], int]:
        """The index operations over n source rows, and the number of rows they give."""
        child = getattr(self, "child_sampler", None)  # a subclass may skip __init__
        if child is None:
            return self._own_ops(n, src, False)
        child_ops, m = child._ops(n, src)
        own, count = self._own_ops(m, src, True)
        return child_ops + own, count

    def _own_ops(self, n: int, src: _Source, has_child: bool) -> Tuple[List[_Op], int]:
        raise NotImplementedError


class SequentialSampler(BuiltinSampler):
    """Reads the rows in order, from `start_index` on.

    Args:
        start_index (int, optional): the first row (``None``: 0). Default: ``None`` .
        num_samples (int, optional): the most rows to read (``None`` or 0: all).
            Default: ``None`` .
    """

    def __init__(self, start_index: Optional[int] = None,
                 num_samples: Optional[int] = None) -> None:
        super().__init__(num_samples)
        if start_index is not None:
            start_index = _check_int(start_index, "SequentialSampler: start_index")
            if start_index < 0:
                raise ValueError(f"SequentialSampler: start_index must be >= 0, got "
                                 f"{start_index}")
        self.start_index = start_index

    def _own_ops(self, n: int, src: _Source, has_child: bool) -> Tuple[List[_Op], int]:
        start = self.start_index or 0
        if n and start >= n:
            raise ValueError(f"SequentialSampler: start_index {start} must be less than the "
                             f"{n} rows")
        ops: List[_Op] = [("skip", {"count": start})] if start else []
        count = _count(self.num_samples, n - start)
        if count < n - start:
            ops.append(("take", {"count": count}))
        return ops, count


class RandomSampler(BuiltinSampler):
    """Reads the rows in a random order, a new one every epoch: a permutation, or
    `num_samples` uniform draws with replacement.

    Args:
        replacement (bool): draw with replacement. Default: ``False`` .
        num_samples (int, optional): the number of rows (``None`` or 0: as many as the
            dataset has). Default: ``None`` .
    """

    _always_shuffled = True

    def __init__(self, replacement: bool = False, num_samples: Optional[int] = None) -> None:
        super().__init__(num_samples)
        self.replacement = _check_bool(replacement, "RandomSampler: replacement")

    def _own_ops(self, n: int, src: _Source, has_child: bool) -> Tuple[List[_Op], int]:
        count = _count(self.num_samples, n)
        if not self.replacement:
            return shuffle_shard_take(n, True, None, count)

        def draw(rows: np.ndarray, rng: np.random.Generator, epoch: int) -> np.ndarray:
            return rng.integers(0, len(rows), count) if len(rows) else np.zeros(0, np.int64)
        return [("sample", {"draw": draw, "count": count})], count


class SubsetSampler(BuiltinSampler):
    """Reads the rows at the given indices, in their order.

    Args:
        indices (Iterable[int]): the row indices (repeats allowed).
        num_samples (int, optional): read only the first num_samples indices (``None`` or
            0: all). Default: ``None`` .
    """

    def __init__(self, indices: Union[Iterable[int], int],
                 num_samples: Optional[int] = None) -> None:
        super().__init__(num_samples)
        name = type(self).__name__
        if isinstance(indices, (int, np.integer)) and not isinstance(indices, bool):
            items: List[Any] = [indices]
        elif isinstance(indices, (str, bytes)) or not _iterable(indices):
            raise TypeError(f"{name}: indices must be an iterable of ints, got {indices!r}")
        else:
            seq = cast(Iterable[Any], indices)
            items = [i for i, _ in zip(seq, range(self.num_samples))] \
                if self.num_samples else list(seq)
        for k, i in enumerate(items):
            if isinstance(i, bool) or not isinstance(i, (int, np.integer)):
                raise TypeError(f"{name}: indices must be ints, got indices[{k}] = {i!r}")
        self.indices = [int(i) for i in items]

    def get_num_samples(self) -> Optional[int]:
        """The number of indices read.

        Returns:
            int, the number of rows.
        """
        n = super().get_num_samples()
        return len(self.indices) if n is None else min(n, len(self.indices))

    def _positions(self, n: int) -> np.ndarray:
        return _check_positions(np.asarray(self.indices, dtype=np.int64), n,
                                type(self).__name__)

    def _own_ops(self, n: int, src: _Source, has_child: bool) -> Tuple[List[_Op], int]:
        pos = self._positions(n)
        return [("subset", {"positions": pos})], len(pos)


class SubsetRandomSampler(SubsetSampler):
    """Reads the rows at the given indices in a random order, a new one every epoch.

    Args:
        indices (Iterable[int]): the row indices.
        num_samples (int, optional): use only the first num_samples indices (``None`` or 0:
            all), as MindSpore does. Default: ``None`` .
    """

    _always_shuffled = True

    def _own_ops(self, n: int, src: _Source, has_child: bool) -> Tuple[List[_Op], int]:
        pos = self._positions(n)
        return [("subset", {"positions": pos}), ("shuffle", {"buffer": max(len(pos), 2)})], \
            len(pos)


class DistributedSampler(BuiltinSampler):
    """Reads one shard of the rows, for data-parallel training: every shard gets
    ceil(rows / num_shards) rows, shard k those at positions k, k + num_shards, ... of the
    (shuffled) order, wrapping to the start for the last ones. The shuffle is the same on
    every shard (dataset.config.set_seed's seed, or a fixed one) and changes every epoch.

    Args:
        num_shards (int): the number of shards (>= 1).
        shard_id (int): this shard, in [0, num_shards).
        shuffle (bool): shuffle the rows before splitting them. Default: ``True`` .
        num_samples (int, optional): the most rows this shard reads (``None`` or 0: all).
            Default: ``None`` .
        offset (int): the shard that gets the first row (then shards get
            (rows + offset) // num_shards rows, plus one for the first remainder ones, less
            one below `offset`, without wrapping); -1 splits evenly. MindSpore uses it when
            concatenated datasets share one DistributedSampler. Default: ``-1`` .
    """

    def __init__(self, num_shards: int, shard_id: int, shuffle: bool = True,
                 num_samples: Optional[int] = None, offset: int = -1) -> None:
        super().__init__(num_samples)
        self.num_shards = _check_int(num_shards, "DistributedSampler: num_shards")
        self.shard_id = _check_int(shard_id, "DistributedSampler: shard_id")
        self.shuffle = _check_bool(shuffle, "DistributedSampler: shuffle")
        self.offset = _check_int(offset, "DistributedSampler: offset")
        if self.num_shards < 1:
            raise RuntimeError(f"DistributedSampler: num_shards must be >= 1, got {num_shards}")
        if not 0 <= self.shard_id < self.num_shards:
            raise RuntimeError(f"DistributedSampler: shard_id must be in [0, {num_shards - 1}], "
                               f"got {shard_id}")
        if self.offset < -1 or self.offset > self.num_shards:
            raise RuntimeError(f"DistributedSampler: offset must be -1 or in [0, num_shards="
                               f"{num_shards}], got {offset}")

    def _own_ops(self, n: int, src: _Source, has_child: bool) -> Tuple[List[_Op], int]:
        return shuffle_shard_take(n, self.shuffle, (self.num_shards, self.shard_id, self.offset),
                                  self.num_samples)


class PKSampler(BuiltinSampler):
    """Reads `num_val` rows of every class (P classes, K rows each), as MindSpore's
    PKSampler: the classes in ascending order (or shuffled), each row of a class drawn
    uniformly at random (with replacement) from that class's rows.

    Args:
        num_val (int): the rows per class (K, >= 1).
        num_class (int, optional): not supported, as in MindSpore (must be ``None``: every
            class). Default: ``None`` .
        shuffle (bool): shuffle the order of the classes every epoch. Default: ``False`` .
        class_column (str): the column holding the class labels (scalars).
            Default: ``'label'`` .
        num_samples (int, optional): the most rows to read (``None`` or 0: all).
            Default: ``None`` .
    """

    def __init__(self, num_val: int, num_class: Optional[int] = None, shuffle: bool = False,
                 class_column: str = "label", num_samples: Optional[int] = None) -> None:
        super().__init__(num_samples)
        self.num_val = _check_int(num_val, "PKSampler: num_val")
        if num_class is not None:
            raise NotImplementedError("PKSampler: num_class is not supported (as in MindSpore); "
                                      "every class is sampled")
        self.shuffle = _check_bool(shuffle, "PKSampler: shuffle")
        if not isinstance(class_column, str) or not class_column:
            raise TypeError(f"PKSampler: class_column must be a column name, got "
                            f"{class_column!r}")
        if self.num_val < 1:
            raise RuntimeError(f"PKSampler: num_val must be >= 1, got {num_val}")
        self.class_column = class_column

    def _own_ops(self, n: int, src: _Source, has_child: bool) -> Tuple[List[_Op], int]:
        if has_child:
            raise NotImplementedError("PKSampler: a child sampler is not supported")
        labels = column_values(src, self.class_column, "PKSampler")
        classes = np.unique(labels)
        count = _count(self.num_samples, self.num_val * len(classes))
        k, shuffle = self.num_val, self.shuffle

        def draw(rows: np.ndarray, rng: np.random.Generator, epoch: int) -> np.ndarray:
            labs = labels[rows]
            order = classes[rng.permutation(len(classes))] if shuffle else classes
            members = [np.flatnonzero(labs == c) for c in order]
            return np.array([m[rng.integers(len(m))] for j in range(count)
                             for m in (members[j // k],)], dtype=np.int64)
        return [("sample", {"draw": draw, "count": count})], count


class WeightedRandomSampler(BuiltinSampler):
    """Draws rows from the first len(weights) rows with probabilities proportional to
    `weights`, anew every epoch.

    Args:
        weights (Union[list[float], float]): the weight of each row (non-negative, not all
            zero, at most one per row).
        num_samples (int, optional): the number of rows (``None`` or 0: as many as the
            dataset has). Default: ``None`` .
        replacement (bool): draw with replacement; without, num_samples must not exceed
            len(weights) (zero-weight rows come last). Default: ``True`` .
    """

    _always_shuffled = True

    def __init__(self, weights: Union[Sequence[float], float], num_samples: Optional[int] = None,
                 replacement: bool = True) -> None:
        super().__init__(num_samples)
        ws: List[Any] = list(weights) if isinstance(weights, (list, tuple, np.ndarray)) \
            else [weights]
        for k, w in enumerate(ws):
            if isinstance(w, bool) or not isinstance(w, numbers.Real):
                raise TypeError(f"WeightedRandomSampler: weights must be numbers, got "
                                f"weights[{k}] = {w!r}")
        self.weights = [float(w) for w in ws]
        self.replacement = _check_bool(replacement, "WeightedRandomSampler: replacement")
        w = np.asarray(self.weights)
        if not len(w) or not np.all(np.isfinite(w)) or (w < 0).any() or not w.any():
            raise RuntimeError(f"WeightedRandomSampler: weights must be finite, non-negative and "
                               f"not all zero, got {self.weights}")

    def _own_ops(self, n: int, src: _Source, has_child: bool) -> Tuple[List[_Op], int]:
        w = np.asarray(self.weights)
        if len(w) > n:
            raise RuntimeError(f"WeightedRandomSampler: {len(w)} weights for a dataset of {n} "
                               "rows (at most one weight per row)")
        count = _count(self.num_samples, n)
        if not self.replacement and len(w) < count:
            raise RuntimeError(f"WeightedRandomSampler: without replacement num_samples ({count})"
                               f" must not exceed the number of weights ({len(w)})")
        p, replacement = w / w.sum(), self.replacement

        def draw(rows: np.ndarray, rng: np.random.Generator, epoch: int) -> np.ndarray:
            if replacement:
                return rng.choice(len(p), size=count, p=p)
            # one pass without replacement (MindSpore's): the smallest Exp(1) / weight keys
            with np.errstate(divide="ignore"):
                keys = rng.standard_exponential(len(p)) / p
            return np.argsort(keys, kind="stable")[:count]
        return [("sample", {"draw": draw, "count": count})], count


class Sampler(BuiltinSampler):
    """The base of a user-defined sampler: subclass it and define ``__iter__`` to yield row
    indices. Before each epoch the pipeline sets ``dataset_size`` and ``num_samples`` (the
    most indices it reads: num_samples, or the dataset's size) and calls ``reset`` (from the
    second epoch on).

    Args:
        num_samples (int, optional): the most indices to read (``None``: the dataset's
            size). Default: ``None`` .
    """

    def __init__(self, num_samples: Optional[int] = None) -> None:
        super().__init__(num_samples)
        self.dataset_size = 0

    def __iter__(self) -> Iterator[int]:
        raise NotImplementedError("Sampler: a subclass must define __iter__ yielding indices")

    def reset(self) -> None:
        """Called before every epoch but the first; override to change state per epoch."""

    def get_num_samples(self) -> Optional[int]:
        """The number of indices the sampler yields (iterating it once).

        Returns:
            int, the number of indices, or ``None`` when num_samples is not set.
        """
        if self.num_samples is None:
            return None
        return len(self._get_indices())

    def _handshake(self, dataset_size: int, num_samples: int) -> None:
        self.dataset_size, self.num_samples = dataset_size, num_samples

    def _get_indices(self) -> np.ndarray:
        limit = self.num_samples if self.num_samples is not None else self.dataset_size
        out: List[Any] = []
        it = iter(self)
        while len(out) < limit:
            try:
                out.append(next(it))
            except StopIteration:
                break
        for k, i in enumerate(out):
            if isinstance(i, bool) or not isinstance(i, (int, np.integer)):
                raise TypeError(f"{type(self).__name__}: the sampler must yield int indices, "
                                f"got {i!r} at position {k}")
        return np.asarray(out, dtype=np.int64)

    def _own_ops(self, n: int, src: _Source, has_child: bool) -> Tuple[List[_Op], int]:
        num_samples = getattr(self, "num_samples", None)  # a subclass may skip __init__
        self._handshake(n, num_samples if num_samples is not None else n)
        count = len(self._get_indices())
        name = type(self).__name__

        def draw(rows: np.ndarray, rng: np.random.Generator, epoch: int) -> np.ndarray:
            if epoch > 0:
                self.reset()
            return _check_positions(self._get_indices(), len(rows), name)
        return [("sample", {"draw": draw, "count": count})], count


class IterSampler(Sampler):
    """Wraps a user object that is not a Sampler: anything iterable (``__iter__``, or
    ``__getitem__`` raising IndexError at the end) whose items are row indices.

    Args:
        sampler (Iterable[int]): the object.
        num_samples (int, optional): the most indices to read (``None``: as many as it
            yields). Default: ``None`` .
    """

    def __init__(self, sampler: Iterable[int], num_samples: Optional[int] = None) -> None:
        if num_samples is None:
            num_samples = len(list(sampler))
        super().__init__(num_samples)
        self.sampler = sampler

    def __iter__(self) -> Iterator[int]:
        return iter(self.sampler)


def _iterable(x: Any) -> bool:
    return hasattr(x, "__iter__") or hasattr(x, "__getitem__")


#: What the sampler argument of a source accepts.
SamplerArg = Union[BuiltinSampler, Iterable[int], int, None]


def resolve_sampler(name: str, sampler: SamplerArg, num_samples: Optional[int],
                    shuffle: Optional[bool], num_shards: Optional[int],
                    shard_id: Optional[int]) -> Optional[BuiltinSampler]:
    """The sampler a source's `sampler` argument stands for (MindSpore's select_sampler): a
    sampler itself, a list of indices (SubsetSampler) or another iterable (IterSampler).
    A sampler excludes shuffle and sharding, and a built-in one num_samples too."""
    if sampler is None:
        return None
    if shuffle is not None or num_shards is not None or shard_id is not None:
        raise ValueError(f"{name}: sampler and shuffle / sharding (num_shards, shard_id) are "
                         f"mutually exclusive: got shuffle={shuffle!r}, num_shards={num_shards!r}"
                         f", shard_id={shard_id!r} with a sampler")
    if isinstance(sampler, BuiltinSampler):
        if num_samples is not None:
            raise ValueError(f"{name}: sampler and num_samples are mutually exclusive (set "
                             "num_samples on the sampler)")
        return sampler
    if isinstance(sampler, (list, tuple, np.ndarray)):
        return SubsetSampler(list(sampler), num_samples)
    if isinstance(sampler, (int, np.integer)) and not isinstance(sampler, bool):
        return SubsetSampler([int(sampler)])
    if not isinstance(sampler, (str, bytes)) and _iterable(sampler):
        return IterSampler(cast(Iterable[int], sampler), num_samples)
    raise TypeError(f"{name}: unsupported sampler {sampler!r}: give a sampler, a list of "
                    "indices or an iterable of indices")


def column_values(src: _Source, column: str, what: str) -> np.ndarray:
    """One scalar per source row from `column` (class labels), read once per source."""
    if column in src.labels:
        return src.labels[column]
    values: List[Any]
    if src.column_reader is not None:
        values = list(src.column_reader(column))
    elif column not in src.columns:
        raise ValueError(f"{what}: class_column {column!r} is not a column of the dataset "
                         f"{src.columns}")
    elif src.tensors is not None:
        values = list(src.tensors[src.columns.index(column)].numpy())
    else:
        i = src.columns.index(column)
        values = []
        for k in range(src.size or 0):
            row = src.pyobj[k]
            values.append(row[i] if isinstance(row, (tuple, list)) and len(src.columns) > 1
                          else row)
    out = []
    for v in values:
        a = np.asarray(v.asnumpy() if hasattr(v, "asnumpy") else v).reshape(-1)
        if a.size != 1:
            raise ValueError(f"{what}: class_column {column!r} must hold one label per row, "
                             f"got shape {a.shape}")
        out.append(a[0])
    src.labels[column] = np.asarray(out)
    return src.labels[column]
