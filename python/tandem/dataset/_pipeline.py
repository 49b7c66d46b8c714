"""The Dataset pipeline (MindSpore 2.x semantics); the engine that runs it is in _engine.

A pipeline is a chain of nodes from a source dataset. Running it splits the chain in two:
  * a prefix the C++ Loader runs when the source is random-access: sample-order operations
    (samplers, shuffle / take / skip / repeat / split), one-column maps (their transforms
    become the column's C++ chain, run by the worker threads without the GIL) and the first
    batch;
  * the rest, run in Python over the Loader's output as a stream of rows or batches (maps
    over several columns or with random Python transforms, filter, per_batch_map,
    operations after batch, iterable sources). A random-access source whose rows hold
    Python objects (dicts, strings) has its sample order evaluated the same way, and its
    rows read in Python.
Shuffles are seeded by one seed per iterator, drawn from tandem's global generator (or
dataset.config.set_seed), so tandem.manual_seed fixes every order; each epoch reshuffles.
"""
from __future__ import annotations

import math
from typing import (TYPE_CHECKING, Any, Callable, Dict, Iterable, Iterator, List, Literal,
                    Optional, Sequence, Tuple, Union, overload)

import numpy as np

from .. import _C
from .._data.common import TransformOp, c_chain, draw_seed
from ._dataset_ops import DatasetOps

if TYPE_CHECKING:  # the engine imports this module
    from ._engine import DictIterator, TupleIterator

Tensor = _C.Tensor
_INDEX_OPS = ("shuffle", "take", "skip", "repeat", "subset", "shard", "sample")
#: One pipeline operation: (kind, arguments).
_Op = Tuple[str, Dict[str, Any]]
#: A row as the pipeline passes it on: one value per column.
_Row = List[Any]
#: A map operation: a built-in transform, a C++ transform or any Python callable.
Operation = Union[TransformOp, _C.Transform, Callable[..., Any]]


class _Source:
    """What a source dataset provides: tensor columns (sliced on dim 0), a random-access
    Python object (rows as tuples), or a factory of iterators over rows. `python_rows`
    marks a random-access object whose rows hold Python objects (read in Python, not by
    the Loader); `column_reader` reads one column of every row (for PKSampler's labels)."""

    def __init__(self, columns: Iterable[str], *, tensors: Optional[List[Tensor]] = None,
                 pyobj: Any = None, iterable: Optional[Callable[[], Iterator[Any]]] = None,
                 size: Optional[int] = None, np_dtypes: Optional[Sequence[Any]] = None,
                 workers: Optional[int] = None, python_rows: bool = False,
                 column_reader: Optional[Callable[[str], Sequence[Any]]] = None) -> None:
        self.columns = list(columns)
        self.tensors, self.pyobj, self.iterable = tensors, pyobj, iterable
        self.size = size
        self.np_dtypes = list(np_dtypes) if np_dtypes else [None] * len(self.columns)
        self.workers = workers
        self.python_rows = python_rows
        self.column_reader = column_reader
        self.labels: Dict[str, np.ndarray] = {}  # column_values' cache

    @property
    def random_access(self) -> bool:
        return self.iterable is None


def _is_python_callable(op: Any) -> bool:
    return (callable(op) and not isinstance(op, (TransformOp, _C.Transform, _NumpyCallable))
            and not isinstance(op, type))


def _to_numpy(v: Any) -> Any:
    return v.asnumpy() if isinstance(v, Tensor) else v


def _from_numpy(v: Any) -> Any:
    if isinstance(v, (Tensor, dict, str, bytes)):  # Python objects pass through
        return v
    if isinstance(v, (list, tuple)) and not isinstance(v, np.ndarray):
        return type(v)(_from_numpy(x) for x in v)
    from .._data.common import as_tensor
    return as_tensor(np.asarray(v))


class _NumpyCallable:
    """A Python function given to map: MindSpore calls it with numpy arrays (one per input
    column) and turns what it returns into columns, so numpy code (``x.transpose(2, 0, 1)``,
    ``x.astype(np.int32)``) works unchanged."""

    def __init__(self, fn: Callable[..., Any]) -> None:
        self.fn = fn
        self.__name__ = getattr(fn, "__name__", type(fn).__name__)

    def __call__(self, *cols: Any) -> Any:
        return _from_numpy(self.fn(*(_to_numpy(c) for c in cols)))


def _as_list(x: Any) -> List[Any]:
    if x is None:
        return []
    return list(x) if isinstance(x, (list, tuple)) else [x]


class Dataset(DatasetOps):
    """The base of all datasets (mindspore.dataset.Dataset); every pipeline method returns
    a new dataset.

    Args:
        parent (Dataset, optional): the dataset this one transforms (internal: the pipeline
            methods pass it). Default: ``None`` .
        kind (str): the operation this node applies (internal). Default: ``''`` .
        **args: the operation's arguments (internal).
    """

    def __init__(self, parent: Optional["Dataset"] = None, kind: str = "", **args: Any) -> None:
        self._parent, self._kind, self._args = parent, kind, args
        self._size_cache: Optional[int] = None

    # ---- pipeline methods -------------------------------------------------------------------
    def map(self, operations: Union[Operation, Sequence[Operation]],
            input_columns: Union[str, Sequence[str], None] = None,
            output_columns: Union[str, Sequence[str], None] = None,
            num_parallel_workers: Optional[int] = None, python_multiprocessing: bool = False,
            cache: Optional[object] = None, callbacks: Optional[object] = None,
            **kwargs: Any) -> "Dataset":
        """Applies operations to columns, row by row. One-column built-in transforms run as
        C++ transforms on the worker threads; Python callables run with the GIL held.

        Args:
            operations (Union[Transform, Callable, list]): a transform or callable, or a list
                of them, applied in order.
            input_columns (Union[str, list[str]], optional): the columns passed to the
                operations (the first column when ``None``). Default: ``None`` .
            output_columns (Union[str, list[str]], optional): the names of the results (the
                input columns when ``None``); they take the first input column's place.
                Default: ``None`` .
            num_parallel_workers (int, optional): worker threads for this map.
                Default: ``None`` .
            python_multiprocessing (bool): accepted for compatibility (workers are threads).
                Default: ``False`` .
            cache (object, optional): accepted for compatibility. Default: ``None`` .
            callbacks (object, optional): accepted for compatibility. Default: ``None`` .
            **kwargs: accepted for compatibility.

        Returns:
            Dataset, the mapped dataset.
        """
        ops = [_NumpyCallable(op) if _is_python_callable(op) else op
               for op in _as_list(operations)]
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

    def batch(self, batch_size: int, drop_remainder: bool = False,
              num_parallel_workers: Optional[int] = None,
              per_batch_map: Optional[Callable[..., Any]] = None,
              input_columns: Union[str, Sequence[str], None] = None,
              output_columns: Union[str, Sequence[str], None] = None,
              **kwargs: Any) -> "Dataset":
        """Stacks `batch_size` consecutive rows per column (a new dim 0). A column of dicts
        batches key by key into one dict of numpy arrays (the dicts must share their keys).

        Args:
            batch_size (int): rows per batch.
            drop_remainder (bool): drop the last batch when it is smaller. Default: ``False`` .
            num_parallel_workers (int, optional): worker threads. Default: ``None`` .
            per_batch_map (Callable, optional): called per batch as
                ``per_batch_map(col_1, ..., col_n, batch_info)`` with one list per input
                column (the rows' values as numpy arrays; a column of dicts as one dict of
                lists, key by key) and a :class:`BatchInfo`; returns a tuple with one value
                per output column: a list of rows' values (stacked), a numpy array (the
                batch) or a dict (kept as a Python object). Default: ``None`` .
            input_columns (Union[str, list[str]], optional): the columns given to
                per_batch_map (all when ``None``). Default: ``None`` .
            output_columns (Union[str, list[str]], optional): the names of per_batch_map's
                results (the input columns when ``None``); they take the first input
                column's place, as in map. Default: ``None`` .
            **kwargs: accepted for compatibility.

        Returns:
            Dataset, the batched dataset.
        """
        if not isinstance(batch_size, (int, np.integer)) or batch_size <= 0:
            raise ValueError(f"batch: batch_size must be a positive int, got {batch_size!r}")
        cols = self.get_col_names()
        ins, outs = _as_list(input_columns), _as_list(output_columns)
        if per_batch_map is None:
            if ins or outs:
                raise ValueError("batch: input_columns and output_columns need per_batch_map")
        else:
            if not callable(per_batch_map):
                raise TypeError(f"batch: per_batch_map must be callable, got {per_batch_map!r}")
            for c in ins:
                if c not in cols:
                    raise ValueError(f"batch: input column {c!r} not in the dataset's columns "
                                     f"{cols}")
            ins = ins or list(cols)
            outs = outs or list(ins)
            _map_columns(cols, [None] * len(cols), ins, outs)  # checks for clashing names
        return Dataset(self, "batch", size=int(batch_size), drop=bool(drop_remainder),
                       workers=num_parallel_workers, fn=per_batch_map, ins=ins, outs=outs)

    def shuffle(self, buffer_size: int) -> "Dataset":
        """Shuffles rows through a buffer (MindSpore's buffer shuffle), reshuffling every
        epoch.

        Args:
            buffer_size (int): the buffer's size (>= 2); at least the dataset's size
                shuffles uniformly.

        Returns:
            Dataset, the shuffled dataset.
        """
        if not isinstance(buffer_size, (int, np.integer)) or buffer_size < 2:
            raise ValueError(f"shuffle: buffer_size must be an int >= 2, got {buffer_size!r}")
        return Dataset(self, "shuffle", buffer=int(buffer_size))

    def repeat(self, count: Optional[int] = None) -> "Dataset":
        """Repeats the dataset; shuffles before it redraw their order each time.

        Args:
            count (int, optional): the number of repetitions; ``None`` or -1 repeats forever.
                Default: ``None`` .

        Returns:
            Dataset, the repeated dataset.
        """
        count = -1 if count is None else count
        if not isinstance(count, (int, np.integer)) or not (count == -1 or count > 0):
            raise ValueError(f"repeat: count must be -1 or positive, got {count!r}")
        return Dataset(self, "repeat", count=int(count))

    def take(self, count: int = -1) -> "Dataset":
        """The first rows (or batches, after batch).

        Args:
            count (int): how many; -1 takes all. Default: ``-1`` .

        Returns:
            Dataset, the shortened dataset.
        """
        if not isinstance(count, (int, np.integer)) or not (count == -1 or count > 0):
            raise ValueError(f"take: count must be -1 or positive, got {count!r}")
        return Dataset(self, "take", count=int(count))

    def skip(self, count: int) -> "Dataset":
        """Drops the first rows (or batches, after batch).

        Args:
            count (int): how many (>= 0).

        Returns:
            Dataset, the rest of the dataset.
        """
        if not isinstance(count, (int, np.integer)) or count < 0:
            raise ValueError(f"skip: count must be a non-negative int, got {count!r}")
        return Dataset(self, "skip", count=int(count))

    def split(self, sizes: Sequence[Union[int, float]], randomize: bool = True) -> List["Dataset"]:
        """Splits the dataset into non-overlapping parts.

        Args:
            sizes (Union[list[int], list[float]]): ints summing to the dataset size, or
                fractions in (0, 1) summing to 1 (rounded as MindSpore does).
            randomize (bool): pick each part's rows at random (each part then reshuffles
                every epoch); else consecutive rows. Default: ``True`` .

        Returns:
            list[Dataset], one dataset per size.
        """
        n = self.get_dataset_size()
        counts = _split_counts(list(sizes), n)
        perm = (np.random.default_rng(draw_seed()).permutation(n) if randomize
                else np.arange(n))
        out: List[Dataset] = []
        start = 0
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
        """The names of the columns, in order.

        Returns:
            list[str], the column names.
        """
        return _plan_columns(self._chain())[0]

    def get_dataset_size(self) -> int:
        """The rows (or batches, after batch) per epoch; an iterable source is iterated once
        to count them.

        Returns:
            int, the number of rows or batches.
        """
        if self._size_cache is None:
            src, ops = self._chain()
            n = _count(src, ops)
            if n is None:  # an iterable source: count by iterating once, as MindSpore does
                it = self.create_tuple_iterator(num_epochs=1)
                n = sum(1 for _ in it)
            self._size_cache = n
        return self._size_cache

    def get_batch_size(self) -> int:
        """The batch size of the last batch operation.

        Returns:
            int, the batch size (1 when the dataset is not batched).
        """
        _, ops = self._chain()
        sizes = [a["size"] for k, a in ops if k == "batch"]
        return sizes[-1] if sizes else 1

    def output_shapes(self) -> List[List[int]]:
        """The shapes of the columns of the first row (or batch).

        Returns:
            list[list[int]], one shape per column.
        """
        row = next(iter(self.create_tuple_iterator(num_epochs=1)))
        return [list(t.shape) for t in row]

    def output_types(self) -> List[np.dtype]:
        """The numpy dtypes of the columns of the first row (or batch).

        Returns:
            list[numpy.dtype], one dtype per column.
        """
        row = next(iter(self.create_tuple_iterator(num_epochs=1, output_numpy=True)))
        return [a.dtype for a in row]

    # ---- iteration --------------------------------------------------------------------------
    @overload
    def create_tuple_iterator(self, columns: Union[str, Sequence[str], None] = None,
                              num_epochs: int = -1, output_numpy: Literal[False] = False,
                              do_copy: bool = True) -> "TupleIterator[List[Tensor]]": ...

    @overload
    def create_tuple_iterator(self, columns: Union[str, Sequence[str], None] = None,
                              num_epochs: int = -1, *, output_numpy: Literal[True],
                              do_copy: bool = True) -> "TupleIterator[List[np.ndarray]]": ...

    def create_tuple_iterator(self, columns: Union[str, Sequence[str], None] = None,
                              num_epochs: int = -1, output_numpy: bool = False,
                              do_copy: bool = True) -> "TupleIterator[Any]":
        """An iterator over the rows as lists of column values; iterating it again runs the
        next epoch.

        Args:
            columns (Union[str, list[str]], optional): the columns to return, in this order
                (all when ``None``). Default: ``None`` .
            num_epochs (int): the number of epochs it may run; -1 is unlimited.
                Default: ``-1`` .
            output_numpy (bool): yield numpy arrays instead of Tensors. Default: ``False`` .
            do_copy (bool): accepted for compatibility (rows are never shared).
                Default: ``True`` .

        Returns:
            TupleIterator, yielding list[Tensor] (list[numpy.ndarray] with output_numpy).
        """
        from ._engine import TupleIterator
        return TupleIterator(self, columns, num_epochs, output_numpy)

    @overload
    def create_dict_iterator(self, num_epochs: int = -1, output_numpy: Literal[False] = False,
                             do_copy: bool = True) -> "DictIterator[Tensor]": ...

    @overload
    def create_dict_iterator(self, num_epochs: int = -1, *, output_numpy: Literal[True],
                             do_copy: bool = True) -> "DictIterator[np.ndarray]": ...

    def create_dict_iterator(self, num_epochs: int = -1, output_numpy: bool = False,
                             do_copy: bool = True) -> "DictIterator[Any]":
        """An iterator over the rows as dicts column name -> value.

        Args:
            num_epochs (int): the number of epochs it may run; -1 is unlimited.
                Default: ``-1`` .
            output_numpy (bool): yield numpy arrays instead of Tensors. Default: ``False`` .
            do_copy (bool): accepted for compatibility. Default: ``True`` .

        Returns:
            DictIterator, yielding dict[str, Tensor] (numpy arrays with output_numpy).
        """
        from ._engine import DictIterator
        return DictIterator(self, None, num_epochs, output_numpy)

    def __iter__(self) -> Iterator[List[Tensor]]:
        return iter(self.create_tuple_iterator(num_epochs=1))

    # ---- internals --------------------------------------------------------------------------
    def _make_source(self) -> _Source:
        raise NotImplementedError

    def _chain(self) -> Tuple[_Source, List[_Op]]:
        nodes: List[Dataset] = []
        d = self
        while d._parent is not None:
            nodes.append(d)
            d = d._parent
        src = d._make_source()
        return src, d._root_ops(src) + [(n._kind, n._args) for n in reversed(nodes)]

    def _root_ops(self, src: _Source) -> List[_Op]:
        """Operations a source dataset implies (its shuffle and num_samples)."""
        return []


def _split_counts(sizes: List[Any], n: int) -> List[int]:
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


def _plan_columns(chain: Tuple[_Source, List[_Op]]) -> Tuple[List[str], List[Any]]:
    """Columns and numpy dtype overrides after the whole chain."""
    src, ops = chain
    cols, npd = list(src.columns), list(src.np_dtypes)
    for kind, a in ops:
        if kind == "map" or (kind == "batch" and a.get("fn") is not None):
            cols, npd = _map_columns(cols, npd, a["ins"], a["outs"])
    return cols, npd


def _map_columns(cols: List[str], npd: List[Any], ins: List[str],
                 outs: List[str]) -> Tuple[List[str], List[Any]]:
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


def _count(src: _Source, ops: List[_Op]) -> Optional[int]:
    """Rows/batches per epoch from the chain alone; None when the source must be iterated
    (an iterable, a filter)."""
    n = src.size
    for kind, a in ops:
        if n is None or kind == "filter":
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
        elif kind == "shard":
            from ._samplers import shard_positions
            n = len(shard_positions(n, a["num_shards"], a["shard_id"], a.get("offset", -1)))
        elif kind == "sample":
            n = a["count"]
        elif kind == "batch":
            n = n // a["size"] if a["drop"] else math.ceil(n / a["size"])
    return n
