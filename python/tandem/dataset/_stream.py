"""The Python half of a pipeline run (see _pipeline): the operations applied to the rows (or
batches) coming from the Loader or an iterable source, as generator factories, and the
conversion of row values (Python dicts are kept as objects, as MindSpore keeps them)."""
from __future__ import annotations

import itertools
from typing import Any, Callable, Dict, Iterator, List, Tuple

import numpy as np

from .. import _C
from .._data.common import TransformOp, as_tensor
from ._pipeline import Operation, _map_columns, _Op, _Row, _to_numpy
from ._pyops import apply_op, needs_python

Tensor = _C.Tensor
#: A factory of generators over one epoch's rows.
Gen = Callable[[], Iterator[_Row]]


def column_value(v: Any) -> Any:
    """A value as the pipeline carries it: a Tensor; Python dicts as themselves (MindSpore
    keeps them as objects); strings as themselves (tandem has no string tensors; MindSpore
    would give a String tensor); bytes as uint8 arrays, as MindSpore hands them on."""
    if isinstance(v, (bytes, bytearray)):
        return as_tensor(np.frombuffer(bytes(v), np.uint8).copy())
    if isinstance(v, (str, dict)) or (isinstance(v, np.ndarray) and v.dtype.kind in "USO"):
        return v
    return as_tensor(v)


def output_value(v: Any, numpy: bool) -> Any:
    """A value as an iterator yields it: Tensors (numpy arrays with output_numpy); inside
    dicts, lists and tuples every number or array is converted the same way, recursively;
    anything else (strings, other objects) is passed on as is."""
    if isinstance(v, Tensor):
        return v.numpy() if numpy else v
    if isinstance(v, dict):
        return {k: output_value(x, numpy) for k, x in v.items()}
    if isinstance(v, (list, tuple)):
        return type(v)(output_value(x, numpy) for x in v)
    if isinstance(v, (np.ndarray, np.generic, int, float, complex)) and \
            np.asarray(v).dtype.kind in "biufc":
        a = np.asarray(v)
        return a if numpy else as_tensor(a)
    return v


class BatchInfo:
    """What ``per_batch_map`` gets as its last argument (MindSpore's BatchInfo).

    Args:
        batch_num (int): the batch's number in its epoch, from 0.
        epoch_num (int): the epoch's number, from 0.
    """

    def __init__(self, batch_num: int, epoch_num: int) -> None:
        self._batch, self._epoch = batch_num, epoch_num

    def get_batch_num(self) -> int:
        """The batch's number in its epoch.

        Returns:
            int, from 0.
        """
        return self._batch

    def get_epoch_num(self) -> int:
        """The epoch's number.

        Returns:
            int, from 0.
        """
        return self._epoch


def _stack_numpy(vals: List[Any]) -> np.ndarray:
    try:
        a = np.stack([np.asarray(_to_numpy(v)) for v in vals])
    except ValueError as e:
        raise ValueError(f"batch: the rows' values have different shapes ({e})") from None
    if a.dtype == object:
        raise TypeError("batch: the rows' values do not batch into a numeric or string array")
    return a


def _collate_object(vals: List[Any]) -> Any:
    """Values inside dicts: key by key, into numpy arrays."""
    if isinstance(vals[0], dict):
        keys = list(vals[0])
        if any(not isinstance(v, dict) or list(v) != keys for v in vals):
            raise ValueError(f"batch: the dicts of a column must have the same keys {keys}")
        return {k: _collate_object([v[k] for v in vals]) for k in keys}
    return _stack_numpy(vals)


def collate(vals: List[Any]) -> Any:
    """One column of a batch: Tensors stacked, dicts merged key by key (numpy inside),
    strings into a numpy string array."""
    if isinstance(vals[0], dict):
        return _collate_object(vals)
    if all(isinstance(v, Tensor) for v in vals):
        return _C.stack(vals, 0)
    a = _stack_numpy(vals)
    return a if a.dtype.kind in "US" else as_tensor(a)


def _batch_arg(vals: List[Any]) -> Any:
    """A column as per_batch_map gets it: a list of numpy values; a column of dicts as one
    dict of lists, key by key."""
    if isinstance(vals[0], dict):
        return {k: [v[k] for v in vals] for k in vals[0]}
    return [_to_numpy(v) for v in vals]


def _batch_result(v: Any) -> Any:
    if isinstance(v, (dict, Tensor)):
        return v
    if isinstance(v, np.ndarray):
        return column_value(v)
    if isinstance(v, list) and v:
        return collate([column_value(e) for e in v])
    raise TypeError(f"batch: per_batch_map must return a tuple of lists of rows' values, "
                    f"numpy arrays or dicts, got an element {v!r}")


def apply_ops(ops: List[Operation], args: List[Any], seed: int, pos: int) -> List[Any]:
    """Runs a map's operations on one row's input values."""
    for k, op in enumerate(ops):
        if isinstance(op, (TransformOp, _C.Transform)):
            if len(args) != 1:
                raise ValueError(f"map: {op!r} takes one column, got {len(args)}")
            if needs_python(op):
                rng = np.random.default_rng([seed & 0xFFFFFFFF, seed >> 32, pos, k])
                args = [column_value(apply_op(op, args[0], rng))]
                continue
            x = as_tensor(args[0])
            for t in (op._c_transforms() if isinstance(op, TransformOp) else [op]):
                x = t(x, seed, pos)
            args = [x]
        else:
            out = op(*args)
            args = list(out) if isinstance(out, tuple) else [out]
    return args


def stream_op(gen: Gen, kind: str, a: Dict[str, Any], cols: List[str], seed: int, epoch: int,
              rest: List[_Op]) -> Tuple[Gen, List[str]]:
    """Wraps a generator factory with one pipeline operation (`rest`: the operations after
    it); returns (factory, columns)."""
    if kind == "map":
        idx = [cols.index(c) for c in a["ins"]]
        new_cols, _ = _map_columns(cols, [None] * len(cols), a["ins"], a["outs"])
        ops, outs = a["ops"], a["outs"]

        def run_map() -> Iterator[_Row]:
            for pos, row in enumerate(gen()):
                res = apply_ops(ops, [row[i] for i in idx], seed & ((1 << 62) - 1), pos)
                if len(res) != len(outs):
                    raise ValueError(f"map: the operations returned {len(res)} values for "
                                     f"output_columns {outs}")
                named = dict(zip(cols, row))
                named.update(zip(outs, (column_value(r) for r in res)))
                yield [named[c] for c in new_cols]
        return run_map, new_cols
    if kind == "batch":
        return _batch(gen, a, cols, epoch)
    if kind == "filter":
        fidx = [cols.index(c) for c in a["ins"]]

        def run_filter() -> Iterator[_Row]:
            for row in gen():
                if bool(np.asarray(a["fn"](*(_to_numpy(row[i]) for i in fidx)))):
                    yield row
        return run_filter, cols
    if kind == "sync_wait":
        per = next((b["size"] for k, b in rest if k == "batch"), 1)

        def run_sync() -> Iterator[_Row]:
            a["cond"].reset(per)
            for row in gen():
                a["cond"].block()
                yield row
        return run_sync, cols
    if kind == "take":
        return (lambda: itertools.islice(gen(), a["count"]) if a["count"] >= 0 else gen()), cols
    if kind == "skip":
        return (lambda: itertools.islice(gen(), a["count"], None)), cols
    if kind == "repeat":
        def run_repeat() -> Iterator[_Row]:
            for _ in (range(a["count"]) if a["count"] > 0 else itertools.count()):
                yield from gen()
        return run_repeat, cols
    if kind == "shuffle":
        def run_shuffle() -> Iterator[_Row]:
            rng = np.random.default_rng([seed & 0xFFFFFFFF, seed >> 32])
            buf: List[_Row] = []
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
        def run_subset() -> Iterator[_Row]:
            rows = list(gen())
            for p in a["positions"]:
                yield rows[p]
        return run_subset, cols
    raise AssertionError(kind)


def _batch(gen: Gen, a: Dict[str, Any], cols: List[str], epoch: int) -> Tuple[Gen, List[str]]:
    size, drop, fn = a["size"], a["drop"], a.get("fn")
    ins, outs = a.get("ins") or [], a.get("outs") or []
    new_cols = _map_columns(cols, [None] * len(cols), ins, outs)[0] if fn else cols

    def run_batch() -> Iterator[_Row]:
        it = gen()
        for b in itertools.count():
            rows = list(itertools.islice(it, size))
            if not rows or (drop and len(rows) < size):
                return
            if fn is None:
                yield [collate([r[c] for r in rows]) for c in range(len(cols))]
                continue
            res = fn(*(_batch_arg([r[cols.index(c)] for r in rows]) for c in ins),
                     BatchInfo(b, epoch))
            # MindSpore casts the result to a tuple: a list is a sequence of columns too
            if not isinstance(res, (tuple, list)) or len(res) != len(outs):
                raise TypeError(f"batch: per_batch_map must return a tuple of {len(outs)} "
                                f"values (output_columns {outs}), got {type(res).__name__}"
                                + (f" of {len(res)}" if isinstance(res, (tuple, list)) else ""))
            named = {c: collate([r[j] for r in rows]) for j, c in enumerate(cols)
                     if c not in ins}
            named.update(zip(outs, (_batch_result(v) for v in res)))
            yield [named[c] for c in new_cols]
    return run_batch, new_cols
