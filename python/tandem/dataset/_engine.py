"""The engine that runs a pipeline (see tandem.dataset._pipeline): the order function for
the index operations, the Loader for the random-access prefix, Python generators for the
rest (_stream), and the iterators over the result."""
from __future__ import annotations

import itertools
from typing import (Any, Dict, Generic, Iterator, List, Optional, Sequence, Tuple, TypeVar,
                    Union, cast)

import numpy as np

from .. import _C
from .._data.common import c_chain, draw_seed, new_loader
from . import _config
from ._pipeline import _INDEX_OPS, Dataset, _as_list, _Op, _plan_columns, _Row
from ._pyops import needs_python
from ._samplers import shard_positions
from ._stream import Gen, column_value, output_value, stream_op

Tensor = _C.Tensor
#: What an iterator yields: a list of column values, or a dict column name -> value.
_Out = TypeVar("_Out")
#: A column value: a Tensor, or a numpy array with output_numpy=True.
_V = TypeVar("_V", Tensor, np.ndarray)


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


def _order(n: int, ops: List[_Op], seed: int, epoch: int) -> np.ndarray:
    """Source indices for one epoch (numbered from 0) after the index operations `ops`."""

    def ev(k: int, salt: Tuple[int, ...]) -> np.ndarray:
        if k == 0:
            return np.arange(n, dtype=np.int64)
        kind, a = ops[k - 1]
        if kind == "repeat":
            return np.concatenate([ev(k - 1, salt + (r,)) for r in range(a["count"])])
        s = ev(k - 1, salt)
        if kind == "shuffle":
            sd = a.get("seed", seed)  # a sharded source's: the same on every shard
            rng = np.random.default_rng([sd & 0xFFFFFFFF, sd >> 32, epoch, k, *salt])
            return _buffer_shuffle(s, a["buffer"], rng)
        if kind == "shard":
            shard: np.ndarray = s[shard_positions(len(s), int(a["num_shards"]),
                                                  int(a["shard_id"]), int(a.get("offset", -1)))]
            return shard
        if kind == "sample":  # a sampler's draw, from a generator like the shuffle's
            rng = np.random.default_rng([seed & 0xFFFFFFFF, seed >> 32, epoch, k, *salt])
            picked: np.ndarray = s[np.asarray(a["draw"](s, rng, epoch), dtype=np.int64)]
            return picked
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
    """One execution of a pipeline: the Loader (or, for a source of Python rows, the order
    function alone) for its prefix and the stream for the rest."""

    def __init__(self, ds: Dataset) -> None:
        src, ops = ds._chain()
        configured = _config.get_seed()
        self.src = src
        self.seed: int = configured if configured is not None else draw_seed()
        self.columns, self.np_dtypes = _plan_columns((src, ops))
        self.loader: Optional[_C.Loader] = None
        self.prefix_columns: List[str] = list(src.columns)
        self.index_ops: List[_Op] = []
        self.batch: Optional[Dict[str, Any]] = None
        self.custom_order = False
        k = 0
        if src.random_access:
            chains: Dict[str, List[_C.Transform]] = {c: [] for c in src.columns}
            cols = list(src.columns)
            index_ops: List[_Op] = []
            batch: Optional[Dict[str, Any]] = None
            workers: List[Optional[int]] = [src.workers]
            while k < len(ops):
                kind, a = ops[k]
                if kind in _INDEX_OPS and not (kind == "repeat" and a["count"] < 0):
                    index_ops.append((kind, a))
                elif src.python_rows:  # rows of Python objects: only the order is computed
                    break
                elif kind == "map" and len(a["ins"]) == 1 and len(a["outs"]) == 1 \
                        and (a["outs"][0] == a["ins"][0] or a["outs"][0] not in cols) \
                        and not any(needs_python(op) for op in a["ops"]):
                    i = cols.index(a["ins"][0])
                    chains[src.columns[i]] += c_chain(a["ops"])
                    cols[i] = a["outs"][0]
                    workers.append(a["workers"])
                elif kind == "batch" and a.get("fn") is None:
                    batch = a
                    workers.append(a["workers"])
                    k += 1
                    break
                else:
                    break
                k += 1
            self.prefix_columns = cols
            self.index_ops, self.batch = index_ops, batch
            if not src.python_rows:
                given = [w for w in workers if w is not None]
                nw = max(given) if given else _config.get_num_parallel_workers()
                full_shuffle = (len(index_ops) == 1 and index_ops[0][0] == "shuffle"
                                and "seed" not in index_ops[0][1]
                                and index_ops[0][1]["buffer"] >= cast(int, src.size))
                self.custom_order = bool(index_ops) and not full_shuffle
                source = list(src.tensors) if src.tensors is not None else src.pyobj
                self.loader = new_loader(source, len(src.columns),
                                         [chains[c] for c in src.columns],
                                         batch["size"] if batch else 1, full_shuffle,
                                         bool(batch and batch["drop"]), int(nw), self.seed)
        self.stream_ops = ops[k:]
        self.epoch = 0

    def _rows(self, items: Iterator[Any]) -> Iterator[_Row]:
        """Source rows (tuples, or single values for one column) as lists of values."""
        ncols = len(self.src.columns)
        for row in items:
            if not (isinstance(row, tuple) or (isinstance(row, list) and ncols > 1)):
                row = (row,)
            if len(row) != ncols:
                raise ValueError(f"GeneratorDataset: a row has {len(row)} fields but "
                                 f"column_names has {ncols}")
            yield [column_value(v) for v in row]

    # rows (lists of values) or batches from the Loader / the Python source
    def _base(self) -> Iterator[_Row]:
        if self.loader is None:
            if self.src.iterable is not None:
                yield from self._rows(self.src.iterable())
                return
            picks = _order(cast(int, self.src.size), self.index_ops, self.seed, self.epoch - 1)
            pyobj = self.src.pyobj
            yield from self._rows(pyobj[int(i)] for i in picks)
            return
        order = None
        if self.custom_order:
            order = _order(cast(int, self.src.size), self.index_ops, self.seed,
                           self.loader.epoch + 1).tolist()
        self.loader.start_epoch(order)
        while True:
            b = self.loader.next()
            if not b:
                return
            yield b if self.batch else [t[0] for t in b]

    def stream(self) -> Iterator[_Row]:
        """A generator over one epoch's rows (lists of values)."""
        self.epoch += 1
        cols = list(self.prefix_columns)
        gen: Gen = self._base
        for k, (kind, a) in enumerate(self.stream_ops):
            gen, cols = stream_op(gen, kind, a, cols, self.seed ^ (self.epoch << 40) ^ (k << 32),
                                  self.epoch - 1, self.stream_ops[k + 1:])
        return gen()

    def close(self) -> None:
        if self.loader is not None:
            self.loader.stop()


class TupleIterator(Generic[_Out]):
    """MindSpore's tuple iterator: ``for row in it`` runs one epoch (rows are lists of
    column values); iterating it again runs the next. ``TupleIterator[T]`` yields ``T``.

    Args:
        ds (Dataset): the dataset to iterate.
        columns (Union[str, list[str]], optional): the columns to yield, in this order (all
            when ``None``).
        num_epochs (int): the epochs it may run; -1 is unlimited.
        output_numpy (bool): yield numpy arrays instead of Tensors.
    """

    def __init__(self, ds: Dataset, columns: Union[str, Sequence[str], None], num_epochs: int,
                 output_numpy: bool) -> None:
        self._run = _Run(ds)
        self._num_epochs, self._numpy = num_epochs, output_numpy
        self._epochs_done = 0
        self._gen: Optional[Iterator[_Row]] = None
        names = self._run.columns
        cols = _as_list(columns)
        for c in cols:
            if c not in names:
                raise ValueError(f"create_tuple_iterator: column {c!r} not in {names}")
        self._pick = [names.index(c) for c in cols] if cols else None

    def __iter__(self) -> "TupleIterator[_Out]":
        return self

    def __next__(self) -> _Out:
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

    def _convert(self, row: _Row) -> _Out:
        return cast(_Out, self._columns(row))

    def _columns(self, row: _Row) -> _Row:
        out = []
        for t, npd in zip(row, self._run.np_dtypes):
            if not isinstance(t, Tensor):  # Python objects: their contents converted
                out.append(output_value(t, self._numpy))
            elif self._numpy:
                a = t.numpy()
                out.append(a.astype(npd) if npd is not None and a.dtype != npd else a)
            else:
                out.append(t)
        row = out
        if self._pick is not None:
            row = [row[i] for i in self._pick]
        return row

    def stop(self) -> None:
        """Ends the iteration and stops the pipeline's worker threads."""
        self._gen = None
        self._run.close()

    def get_col_names(self) -> List[str]:
        """The names of the columns of the dataset.

        Returns:
            list[str], the column names.
        """
        return list(self._run.columns)


class DictIterator(TupleIterator[Dict[str, _V]]):
    """MindSpore's dict iterator: rows are dicts column name -> value; ``DictIterator[T]``
    yields ``dict[str, T]``.

    Args:
        ds (Dataset): the dataset to iterate.
        columns (Union[str, list[str]], optional): ignored (every column is yielded).
        num_epochs (int): the epochs it may run; -1 is unlimited.
        output_numpy (bool): yield numpy arrays instead of Tensors.
    """

    def _convert(self, row: _Row) -> Dict[str, _V]:
        return dict(zip(self._run.columns, self._columns(row)))
