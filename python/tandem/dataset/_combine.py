"""Datasets built from other datasets: concat (one after the other) and zip (side by side).
Each is a source whose rows are the streams of its children's runs, so every child keeps
its own Loader, order and per-epoch reshuffling."""
from __future__ import annotations

from typing import Iterator, List, Optional, Tuple

from ._engine import _Run
from ._pipeline import Dataset, _count, _plan_columns, _Source


def _size(d: Dataset) -> Optional[int]:
    try:
        return _count(*d._chain())
    except ValueError:  # repeats forever
        return None


class _Combined(Dataset):
    def __init__(self, children: List[Dataset]) -> None:
        super().__init__()
        self._children = children

    def _runs(self) -> "_LazyRuns":
        return _LazyRuns(self._children)


class _LazyRuns:
    """The children's runs of one run of the combined dataset, started on first use."""

    def __init__(self, children: List[Dataset]) -> None:
        self.children = children
        self.runs: List[_Run] = []

    def streams(self) -> List[Iterator[List[object]]]:
        if not self.runs:
            self.runs = [_Run(c) for c in self.children]
        return [r.stream() for r in self.runs]


class ConcatDataset(_Combined):
    """The rows of several datasets with the same columns, one dataset after the other
    (what Dataset.concat and ``+`` return).

    Args:
        datasets (list[Dataset]): the datasets, in order.
    """

    def __init__(self, datasets: List[Dataset]) -> None:
        super().__init__(datasets)
        names = [d.get_col_names() for d in datasets]
        for d, n in zip(datasets[1:], names[1:]):
            if n != names[0]:
                raise ValueError(f"concat: the datasets must have the same columns, got "
                                 f"{names[0]} and {n}")

    def _make_source(self) -> _Source:
        cols, npd = _plan_columns(self._children[0]._chain())
        sizes = [_size(d) for d in self._children]
        runs = self._runs()

        def rows() -> Iterator[Tuple[object, ...]]:
            for s in runs.streams():
                for row in s:
                    yield tuple(row)
        return _Source(cols, iterable=rows, np_dtypes=npd,
                       size=None if None in sizes else sum(s for s in sizes if s is not None))


class ZipDataset(_Combined):
    """Rows of several datasets side by side (what Dataset.zip returns): row i has the
    columns of row i of each dataset; it ends with the shortest. Column names must differ.

    Args:
        datasets (list[Dataset]): the datasets, in column order.
    """

    def __init__(self, datasets: List[Dataset]) -> None:
        super().__init__(datasets)
        names = [c for d in datasets for c in d.get_col_names()]
        if len(set(names)) != len(names):
            raise ValueError(f"zip: the datasets' column names must differ, got {names}")

    def _make_source(self) -> _Source:
        plans = [_plan_columns(d._chain()) for d in self._children]
        sizes = [_size(d) for d in self._children]
        runs = self._runs()

        def rows() -> Iterator[Tuple[object, ...]]:
            for parts in zip(*runs.streams()):
                yield tuple(v for p in parts for v in p)
        return _Source([c for p in plans for c in p[0]], iterable=rows,
                       np_dtypes=[t for p in plans for t in p[1]],
                       size=None if None in sizes else min(s for s in sizes if s is not None))
