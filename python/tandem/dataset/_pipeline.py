"""The Dataset pipeline (MindSpore 2.x semantics) and the engine that runs it.

A pipeline is a chain of nodes from a source dataset. Running it splits the chain in two:
  * a prefix the C++ Loader runs when the source is random-access: sample-order operations
    (shuffle / take / skip / repeat / split), one-column maps (their transforms become the
    column's C++ chain, run by the worker threads without the GIL) and the first batch;
  * the rest, run in Python over the Loader's output as a stream of rows or batches (maps
    over several columns, operations after batch, iterable sources).
Shuffles are seeded by one seed per iterator, drawn from tandem's global generator (or
dataset.config.set_seed), so tandem.manual_seed fixes every order; each epoch reshuffles.
"""
from __future__ import annotations

import itertools
import math
from typing import Any, Dict, List, Optional, Sequence

import numpy as np

from .. import _C
from .._data.common import TransformOp, as_tensor, c_chain, draw_seed, new_loader
from . import _config

_INDEX_OPS = ("shuffle", "take", "skip", "repeat", "subset")


class _Source:
    """What a source dataset provides: tensor columns (sliced on dim 0), a random-access
    Python object (rows as tuples), or a factory of iterators over rows."""

    def __init__(self, columns, *, tensors=None, pyobj=None, iterable=None, size=None,
                 np_dtypes=None, workers=None):
        self.columns = list(columns)
        self.tensors, self.pyobj, self.iterable = tensors, pyobj, iterable
        self.size = size
        self.np_dtypes = list(np_dtypes) if np_dtypes else [None] * len(self.columns)
        self.workers = workers

    @property
    def random_access(self) -> bool:
        return self.iterable is None


def _as_list(x) -> list:
    if x is None:
        return []
    return list(x) if isinstance(x, (list, tuple)) else [x]


class Dataset:
    """Base of all datasets; every pipeline method returns a new dataset."""

    def __init__(self, parent: Optional["Dataset"] = None, kind: str = "", **args):
        self._parent, self._kind, self._args = parent, kind, args
        self._size_cache: Optional[int] = None

    # ---- pipeline methods -------------------------------------------------------------------
    def map(self, operations, input_columns=None, output_columns=None, num_parallel_workers=None,
            python_multiprocessing=False, cache=None, callbacks=None, **kwargs) -> "Dataset":
        """Applies operations (a transform, callable, or list of them, in order) to
        input_columns (default: the first column); results go to output_columns."""
        ops = _as_list(operations)
        if not ops:
            raise ValueError("map: operations must not be empty")
        c_chain([op for op in ops if not isinstance(op, _C.Transform)])  # type checks
        cols = self.get_col_names()
        ins = _as_list(input_columns) or cols[:1]
        for c in ins:
            if c not in cols:
                raise ValueError(f"map: input column {c!r} not in the dataset's columns {cols}")
        outs = _as_list(output_columns) or list(ins)
        _map_columns(cols, [None] * len(cols), ins, outs)  # checks for clashing names
        return Dataset(self, "map", ops=ops, ins=ins, outs=outs, workers=num_parallel_workers)

    def batch(self, batch_size: int, drop_remainder: bool = False, num_parallel_workers=None,
              per_batch_map=None, input_columns=None, output_columns=None, **kwargs) -> "Dataset":
        """Stacks batch_size consecutive rows per column; the last smaller batch is kept unless
        drop_remainder."""
        if per_batch_map is not None:
            raise NotImplementedError("batch: per_batch_map is not implemented; map after batch")
        if not isinstance(batch_size, (int, np.integer)) or batch_size <= 0:
            raise ValueError(f"batch: batch_size must be a positive int, got {batch_size!r}")
        return Dataset(self, "batch", size=int(batch_size), drop=bool(drop_remainder),
                       workers=num_parallel_workers)

    def shuffle(self, buffer_size: int) -> "Dataset":
        """Shuffles rows through a buffer of buffer_size (>= the dataset size: uniformly)."""
        if not isinstance(buffer_size, (int, np.integer)) or buffer_size < 2:
            raise ValueError(f"shuffle: buffer_size must be an int >= 2, got {buffer_size!r}")
        return Dataset(self, "shuffle", buffer=int(buffer_size))

    def repeat(self, count: Optional[int] = None) -> "Dataset":
        """Repeats the dataset count times (None or -1: forever); shuffles redraw each time."""
        count = -1 if count is None else count
        if not isinstance(count, (int, np.integer)) or not (count == -1 or count > 0):
            raise ValueError(f"repeat: count must be -1 or positive, got {count!r}")
        return Dataset(self, "repeat", count=int(count))

    def take(self, count: int = -1) -> "Dataset":
        """The first count rows (or batches after batch); -1 takes all."""
        if not isinstance(count, (int, np.integer)) or not (count == -1 or count > 0):
            raise ValueError(f"take: count must be -1 or positive, got {count!r}")
        return Dataset(self, "take", count=int(count))

    def skip(self, count: int) -> "Dataset":
        """Drops the first count rows (or batches after batch)."""
        if not isinstance(count, (int, np.integer)) or count < 0:
            raise ValueError(f"skip: count must be a non-negative int, got {count!r}")
        return Dataset(self, "skip", count=int(count))

    def split(self, sizes: Sequence, randomize: bool = True) -> List["Dataset"]:
        """Splits into datasets of the given sizes (ints summing to the size, or fractions
        summing to 1, rounded as MindSpore does); randomize picks the rows at random."""
        n = self.get_dataset_size()
        counts = _split_counts(list(sizes), n)
        perm = (np.random.default_rng(draw_seed()).permutation(n) if randomize
                else np.arange(n))
        out, start = [], 0
        for c in counts:
            if randomize:  # random rows, visited in a fresh random order each epoch
                sub = Dataset(self, "subset", positions=np.sort(perm[start:start + c]))
                out.append(Dataset(sub, "shuffle", buffer=max(c, 2)))
            else:
                out.append(Dataset(self, "subset", positions=perm[start:start + c]))
            start += c
        return out

    # ---- queries ----------------------------------------------------------------------------
    def get_col_names(self) -> List[str]:
        return _plan_columns(self._chain())[0]

    def get_dataset_size(self) -> int:
        """Rows (or batches after batch) per epoch."""
        if self._size_cache is None:
            src, ops = self._chain()
            n = _count(src, ops)
            if n is None:  # an iterable source: count by iterating once, as MindSpore does
                it = self.create_tuple_iterator(num_epochs=1)
                n = sum(1 for _ in it)
            self._size_cache = n
        return self._size_cache

    def get_batch_size(self) -> int:
        _, ops = self._chain()
        sizes = [a["size"] for k, a in ops if k == "batch"]
        return sizes[-1] if sizes else 1

    def output_shapes(self) -> List[list]:
        row = next(iter(self.create_tuple_iterator(num_epochs=1)))
        return [list(t.shape) for t in row]

    def output_types(self) -> list:
        row = next(iter(self.create_tuple_iterator(num_epochs=1, output_numpy=True)))
        return [a.dtype for a in row]

    # ---- iteration --------------------------------------------------------------------------
    def create_tuple_iterator(self, columns=None, num_epochs: int = -1, output_numpy: bool = False,
                              do_copy: bool = True) -> "TupleIterator":
        """Iterates rows as lists of tensors (numpy arrays with output_numpy); iterating the
        returned object again runs the next epoch, up to num_epochs (-1: unlimited)."""
        return TupleIterator(self, columns, num_epochs, output_numpy)

    def create_dict_iterator(self, num_epochs: int = -1, output_numpy: bool = False,
                             do_copy: bool = True) -> "DictIterator":
        """Iterates rows as {column name: value}."""
        return DictIterator(self, None, num_epochs, output_numpy)

    def __iter__(self):
        return iter(self.create_tuple_iterator(num_epochs=1))

    # ---- internals --------------------------------------------------------------------------
    def _make_source(self) -> _Source:
        raise NotImplementedError

    def _chain(self):
        nodes, d = [], self
        while d._parent is not None:
            nodes.append(d)
            d = d._parent
        src = d._make_source()
        return src, d._root_ops(src) + [(n._kind, n._args) for n in reversed(nodes)]

    def _root_ops(self, src: _Source) -> list:
        """Operations a source dataset implies (its shuffle and num_samples)."""
        return []


def _split_counts(sizes: list, n: int) -> List[int]:
    if not sizes:
        raise ValueError("split: sizes must not be empty")
    if all(isinstance(s, (int, np.integer)) for s in sizes):
        if any(s <= 0 for s in sizes) or sum(sizes) != n:
            raise ValueError(f"split: int sizes must be positive and sum to the dataset size {n}, "
                             f"got {sizes}")
        return [int(s) for s in sizes]
    if not all(isinstance(s, float) and 0 < s < 1 for s in sizes) or abs(sum(sizes) - 1) > 1e-6:
        raise ValueError(f"split: sizes must be all ints or all floats in (0, 1) summing to 1, "
                         f"got {sizes}")
    counts = [int(round(s * n)) for s in sizes]
    if any(c == 0 for c in counts):
        raise ValueError(f"split: a split of {sizes} over {n} rows would be empty")
    diff = n - sum(counts)
    if diff > 0:
        counts[0] += diff
    elif diff < 0:  # remove from the first split large enough to keep a row
        for i, c in enumerate(counts):
            if c + diff >= 1:
                counts[i] += diff
                break
    return counts


def _plan_columns(chain):
    """Columns and numpy dtype overrides after the whole chain."""
    src, ops = chain
    cols, npd = list(src.columns), list(src.np_dtypes)
    for kind, a in ops:
        if kind == "map":
            cols, npd = _map_columns(cols, npd, a["ins"], a["outs"])
    return cols, npd


def _map_columns(cols, npd, ins, outs):
    """MindSpore puts a map's output columns where its first input column was."""
    if len(ins) == 1 and len(outs) == 1:
        i = cols.index(ins[0])
        if outs[0] != ins[0] and outs[0] in cols:
            raise ValueError(f"map: output column {outs[0]!r} already exists in {cols}")
        return cols[:i] + outs + cols[i + 1:], npd[:i] + [None] + npd[i + 1:]
    pos = cols.index(ins[0])
    keep = [(c, t) for c, t in zip(cols, npd) if c not in ins]
    before = sum(1 for c in cols[:pos] if c not in ins)
    new = keep[:before] + [(c, None) for c in outs] + keep[before:]
    names = [c for c, _ in new]
    if len(set(names)) != len(names):
        raise ValueError(f"map: output columns {outs} clash with existing columns {cols}")
    return names, [t for _, t in new]


def _count(src: _Source, ops) -> Optional[int]:
    """Rows/batches per epoch from the chain alone; None when the source must be iterated
    (an iterable) or the pipeline repeats forever."""
    n = src.size
    for kind, a in ops:
        if n is None:
            return None
        if kind == "take" and a["count"] >= 0:
            n = min(n, a["count"])
        elif kind == "skip":
            n = max(n - a["count"], 0)
        elif kind == "repeat":
            if a["count"] < 0:
                raise ValueError("get_dataset_size: the dataset repeats forever")
            n *= a["count"]
        elif kind == "subset":
            n = len(a["positions"])
        elif kind == "batch":
            n = n // a["size"] if a["drop"] else math.ceil(n / a["size"])
    return n


# ---- sample orders (index space) ------------------------------------------------------------
def _buffer_shuffle(stream: np.ndarray, buf: int, rng: np.random.Generator) -> np.ndarray:
    """MindSpore's shuffle: fill a buffer, emit a random slot, refill it with the next row."""
    if buf >= len(stream):
        return stream[rng.permutation(len(stream))]
    out = np.empty_like(stream)
    buffer = list(stream[:buf])
    picks = rng.random(len(stream))
    for k, nxt in enumerate(itertools.chain(stream[buf:], [None] * buf)):
        j = int(picks[k] * len(buffer))
        out[k] = buffer[j]
        if nxt is None:
            buffer[j] = buffer[-1]
            buffer.pop()
        else:
            buffer[j] = nxt
    return out


def _order(n: int, ops, seed: int, epoch: int) -> np.ndarray:
    """Source indices for one Loader epoch after the index operations `ops`."""

    def ev(k: int, salt: tuple) -> np.ndarray:
        if k == 0:
            return np.arange(n, dtype=np.int64)
        kind, a = ops[k - 1]
        if kind == "repeat":
            return np.concatenate([ev(k - 1, salt + (r,)) for r in range(a["count"])])
        s = ev(k - 1, salt)
        if kind == "shuffle":
            rng = np.random.default_rng([seed & 0xFFFFFFFF, seed >> 32, epoch, k, *salt])
            return _buffer_shuffle(s, a["buffer"], rng)
        if kind == "take":
            return s if a["count"] < 0 else s[:a["count"]]
        if kind == "skip":
            return s[a["count"]:]
        if kind == "subset":
            return s[a["positions"]]
        raise AssertionError(kind)

    return ev(len(ops), ())


# ---- the engine -----------------------------------------------------------------------------
class _Run:
    """One execution of a pipeline: the Loader for its prefix and the stream for the rest."""

    def __init__(self, ds: Dataset):
        src, ops = ds._chain()
        self.src, self.seed = src, (_config.get_seed() if _config.get_seed() is not None
                                    else draw_seed())
        self.columns, self.np_dtypes = _plan_columns((src, ops))
        self.loader = None
        k = 0
        if src.random_access:
            chains: Dict[str, list] = {c: [] for c in src.columns}
            cols = list(src.columns)
            index_ops, batch, workers = [], None, [src.workers]
            while k < len(ops):
                kind, a = ops[k]
                if kind in _INDEX_OPS and not (kind == "repeat" and a["count"] < 0):
                    index_ops.append((kind, a))
                elif kind == "map" and len(a["ins"]) == 1 and len(a["outs"]) == 1 \
                        and (a["outs"][0] == a["ins"][0] or a["outs"][0] not in cols):
                    i = cols.index(a["ins"][0])
                    chains[src.columns[i]] += c_chain(a["ops"])
                    cols[i] = a["outs"][0]
                    workers.append(a["workers"])
                elif kind == "batch":
                    batch = a
                    workers.append(a["workers"])
                    k += 1
                    break
                else:
                    break
                k += 1
            self.prefix_columns = cols
            self.index_ops, self.batch = index_ops, batch
            nw = [w for w in workers if w is not None]
            nw = max(nw) if nw else _config.get_num_parallel_workers()
            full_shuffle = (len(index_ops) == 1 and index_ops[0][0] == "shuffle"
                            and index_ops[0][1]["buffer"] >= src.size)
            self.loader_shuffles = full_shuffle
            self.custom_order = bool(index_ops) and not full_shuffle
            source = list(src.tensors) if src.tensors is not None else src.pyobj
            self.loader = new_loader(source, len(src.columns), [chains[c] for c in src.columns],
                                     batch["size"] if batch else 1, full_shuffle,
                                     bool(batch and batch["drop"]), int(nw), self.seed)
        self.stream_ops = ops[k:]
        self.epoch = 0

    # rows (lists of tensors) or batches from the Loader / the iterable source
    def _base(self):
        if self.loader is None:
            ncols = len(self.src.columns)
            for row in self.src.iterable():
                if not (isinstance(row, tuple) or (isinstance(row, list) and ncols > 1)):
                    row = (row,)
                if len(row) != ncols:
                    raise ValueError(f"GeneratorDataset: a row has {len(row)} fields but "
                                     f"column_names has {len(self.src.columns)}")
                yield [as_tensor(v) for v in row]
            return
        order = None
        if self.custom_order:
            order = _order(self.src.size, self.index_ops, self.seed, self.loader.epoch + 1).tolist()
        self.loader.start_epoch(order)
        while True:
            b = self.loader.next()
            if not b:
                return
            yield b if self.batch else [t[0] for t in b]

    def stream(self):
        """A generator over one epoch's rows (lists of tensors)."""
        self.epoch += 1
        cols = list(self.prefix_columns if self.loader is not None else self.src.columns)
        gen = self._base
        for k, (kind, a) in enumerate(self.stream_ops):
            gen, cols = _stream_op(gen, kind, a, cols, self.seed ^ (self.epoch << 40) ^ (k << 32))
        return gen()

    def close(self):
        if self.loader is not None:
            self.loader.stop()


def _apply_ops(ops, args: list, seed: int, pos: int) -> list:
    for op in ops:
        if isinstance(op, (TransformOp, _C.Transform)):
            if len(args) != 1:
                raise ValueError(f"map: {op!r} takes one column, got {len(args)}")
            x = as_tensor(args[0])
            for t in (op._c_transforms() if isinstance(op, TransformOp) else [op]):
                x = t(x, seed, pos)
            args = [x]
        else:
            out = op(*args)
            args = list(out) if isinstance(out, tuple) else [out]
    return args


def _stream_op(gen, kind: str, a: dict, cols: list, seed: int):
    """Wraps a generator factory with one pipeline operation; returns (factory, columns)."""
    if kind == "map":
        idx = [cols.index(c) for c in a["ins"]]
        new_cols, _ = _map_columns(cols, [None] * len(cols), a["ins"], a["outs"])
        ops, outs = a["ops"], a["outs"]

        def run_map():
            for pos, row in enumerate(gen()):
                res = _apply_ops(ops, [row[i] for i in idx], seed & ((1 << 62) - 1), pos)
                if len(res) != len(outs):
                    raise ValueError(f"map: the operations returned {len(res)} values for "
                                     f"output_columns {outs}")
                named = dict(zip(cols, row))
                named.update(zip(outs, (as_tensor(r) for r in res)))
                yield [named[c] for c in new_cols]
        return run_map, new_cols
    if kind == "batch":
        size, drop = a["size"], a["drop"]

        def run_batch():
            it = gen()
            while True:
                rows = list(itertools.islice(it, size))
                if not rows or (drop and len(rows) < size):
                    return
                yield [_C.stack([r[c] for r in rows], 0) for c in range(len(cols))]
        return run_batch, cols
    if kind == "take":
        return (lambda: itertools.islice(gen(), a["count"]) if a["count"] >= 0 else gen()), cols
    if kind == "skip":
        return (lambda: itertools.islice(gen(), a["count"], None)), cols
    if kind == "repeat":
        def run_repeat():
            for _ in (range(a["count"]) if a["count"] > 0 else itertools.count()):
                yield from gen()
        return run_repeat, cols
    if kind == "shuffle":
        def run_shuffle():
            rng = np.random.default_rng([seed & 0xFFFFFFFF, seed >> 32])
            buf = []
            for row in gen():
                if len(buf) < a["buffer"]:
                    buf.append(row)
                    continue
                j = int(rng.integers(len(buf)))
                yield buf[j]
                buf[j] = row
            while buf:
                yield buf.pop(int(rng.integers(len(buf))))
        return run_shuffle, cols
    if kind == "subset":
        def run_subset():
            rows = list(gen())
            for p in a["positions"]:
                yield rows[p]
        return run_subset, cols
    raise AssertionError(kind)


class TupleIterator:
    """MindSpore's tuple iterator: `for row in it` runs one epoch; again runs the next."""

    def __init__(self, ds: Dataset, columns, num_epochs: int, output_numpy: bool):
        self._run = _Run(ds)
        self._num_epochs, self._numpy = num_epochs, output_numpy
        self._epochs_done, self._gen = 0, None
        names = self._run.columns
        cols = _as_list(columns)
        for c in cols:
            if c not in names:
                raise ValueError(f"create_tuple_iterator: column {c!r} not in {names}")
        self._pick = [names.index(c) for c in cols] if cols else None

    def __iter__(self):
        return self

    def __next__(self):
        if self._gen is None:
            if 0 <= self._num_epochs <= self._epochs_done:
                self._run.close()
                raise StopIteration
            self._gen = self._run.stream()
        try:
            row = next(self._gen)
        except StopIteration:
            self._gen = None
            self._epochs_done += 1
            raise
        except BaseException:
            self._gen = None
            self._run.close()
            raise
        return self._convert(row)

    def _convert(self, row):
        if self._numpy:
            out = []
            for t, npd in zip(row, self._run.np_dtypes):
                a = t.numpy()
                out.append(a.astype(npd) if npd is not None and a.dtype != npd else a)
            row = out
        if self._pick is not None:
            row = [row[i] for i in self._pick]
        return row

    def stop(self):
        self._gen = None
        self._run.close()

    def get_col_names(self) -> List[str]:
        return list(self._run.columns)


class DictIterator(TupleIterator):
    def _convert(self, row) -> Dict[str, Any]:
        return dict(zip(self._run.columns, super()._convert(row)))
