"""Dataset methods beyond the row-wise ones of _pipeline: filter, concat / ``+``, zip, save,
sync_wait / sync_update (MindSpore 2.x semantics). Dataset inherits them from DatasetOps."""
from __future__ import annotations

import threading
import warnings
from typing import (TYPE_CHECKING, Any, Callable, Dict, List, Optional, Sequence, Union,
                    cast)

from . import _config

if TYPE_CHECKING:  # _pipeline defines Dataset on top of this module
    from ._pipeline import Dataset


class SyncCondition:
    """The state of one sync_wait: how many more rows may pass before the next
    sync_update (MindSpore's BlockReleasePair). Rows count in batches when a batch follows
    the sync_wait (rows_per_batch)."""

    def __init__(self, name: str, num_batch: int, callback: Optional[Callable[[Any], Any]]
                 ) -> None:
        self.name, self.num_batch, self.callback = name, num_batch, callback
        self.rows_per_batch = 1
        self._cv = threading.Condition()
        self._count = -num_batch
        self._disabled = False

    def reset(self, rows_per_batch: int) -> None:
        """Starts an epoch: num_batch batches pass without blocking."""
        with self._cv:
            self.rows_per_batch = rows_per_batch
            self._count = -self.num_batch * rows_per_batch
            self._cv.notify_all()

    def block(self) -> None:
        """Called before a row passes: waits for sync_update when the allowance is used up
        (up to config.get_callback_timeout() seconds; then, as MindSpore does, warns and
        stops blocking)."""
        with self._cv:
            if not self._disabled and self._count >= 0:
                ok = self._cv.wait_for(lambda: self._count < 0 or self._disabled,
                                       timeout=_config.get_callback_timeout())
                if not ok:
                    warnings.warn(f"sync_wait: no sync_update(condition_name={self.name!r}) in "
                                  f"{_config.get_callback_timeout()} s; no longer blocking",
                                  RuntimeWarning, stacklevel=2)
                    self._disabled = True
            self._count += 1

    def release(self, num_batch: Optional[int], data: Any) -> None:
        """Lets `num_batch` more batches pass and calls the callback with `data`."""
        with self._cv:
            n = self.num_batch if num_batch is None else num_batch
            self._count -= n * self.rows_per_batch
            if self.callback is not None:
                self.callback(data)
            self._cv.notify_all()


def _datasets(datasets: Any, what: str) -> List["Dataset"]:
    from ._pipeline import Dataset
    items = [datasets] if isinstance(datasets, Dataset) else datasets
    if not isinstance(items, (list, tuple)) or not items or \
            not all(isinstance(d, Dataset) for d in items):
        raise TypeError(f"{what}: datasets must be a Dataset or a non-empty list of Datasets, "
                        f"got {datasets!r}")
    return list(items)


class DatasetOps:
    """Mixin of Dataset: filter, concat, zip, save, sync_wait and sync_update."""

    if TYPE_CHECKING:
        _parent: Optional[Dataset]
        _kind: str
        _args: Dict[str, Any]

        def get_col_names(self) -> List[str]: ...

    def filter(self, predicate: Callable[..., Any],
               input_columns: Union[str, Sequence[str], None] = None,
               num_parallel_workers: Optional[int] = None) -> "Dataset":
        """Keeps the rows for which `predicate` returns ``True``.

        Args:
            predicate (Callable): called per row with the input columns' values (numpy
                arrays) as arguments; returns a bool.
            input_columns (Union[str, list[str]], optional): the columns passed (all when
                ``None``). Default: ``None`` .
            num_parallel_workers (int, optional): accepted for compatibility (the predicate
                runs on the consuming thread). Default: ``None`` .

        Returns:
            Dataset, the filtered dataset (its size is counted by iterating it).
        """
        from ._pipeline import Dataset, _as_list
        if not callable(predicate):
            raise TypeError(f"filter: predicate must be callable, got {predicate!r}")
        cols = self.get_col_names()
        ins = _as_list(input_columns)
        for c in ins:
            if c not in cols:
                raise ValueError(f"filter: input column {c!r} not in the dataset's columns {cols}")
        return Dataset(cast("Dataset", self), "filter", fn=predicate, ins=ins or list(cols))

    def concat(self, datasets: Union["Dataset", Sequence["Dataset"]]) -> "Dataset":
        """The rows of this dataset, then those of `datasets`, in order (``a + b`` is
        ``a.concat(b)``). The datasets must have the same column names.

        Args:
            datasets (Union[Dataset, list[Dataset]]): the dataset(s) to append.

        Returns:
            Dataset, the concatenated dataset.
        """
        from ._combine import ConcatDataset
        return ConcatDataset([cast("Dataset", self)] + _datasets(datasets, "concat"))

    def __add__(self, datasets: Union["Dataset", Sequence["Dataset"]]) -> "Dataset":
        return self.concat(datasets)

    def zip(self, datasets: Union["Dataset", Sequence["Dataset"]]) -> "Dataset":
        """Rows side by side: row i holds the columns of row i of this dataset and of each of
        `datasets` (column names must differ); it ends with the shortest.

        Args:
            datasets (Union[Dataset, list[Dataset]]): the dataset(s) to zip with.

        Returns:
            Dataset, the zipped dataset.
        """
        from ._combine import ZipDataset
        return ZipDataset([cast("Dataset", self)] + _datasets(datasets, "zip"))

    def save(self, file_name: str, num_files: int = 1, file_type: str = "mindrecord") -> None:
        """Writes the rows of one epoch to MindRecord files (tandem.mindrecord's format, read
        back by MindDataset). Values are cast as MindSpore does: bool, int8/16, uint8/16 and
        int32 to int32; uint32, int64 and uint64 to int64; float16 and float32 to float32;
        float64; str to string, bytes to bytes. Arrays keep their shape, dim 0 free. Every
        file is written to a temporary name and renamed into place at the end.

        Args:
            file_name (str): the file; with num_files > 1 the files are file_name0,
                file_name1, ... (row k goes to file k % num_files). Existing files are not
                overwritten.
            num_files (int): the number of files, in [1, 1000]. Default: ``1`` .
            file_type (str): only ``'mindrecord'``. Default: ``'mindrecord'`` .
        """
        from ._mindrecord import save_dataset
        save_dataset(cast("Dataset", self), file_name, num_files, file_type)

    def sync_wait(self, condition_name: str, num_batch: int = 1,
                  callback: Optional[Callable[[Any], Any]] = None) -> "Dataset":
        """Blocks the pipeline here after `num_batch` batches (rows, when no batch follows)
        until ``sync_update(condition_name)`` is called, which first calls `callback` with
        its data; each epoch starts with num_batch free batches.

        Args:
            condition_name (str): the name of the condition (unique in the pipeline).
            num_batch (int): batches passed per sync_update. Default: ``1`` .
            callback (Callable, optional): called by sync_update with its `data`.
                Default: ``None`` .

        Returns:
            Dataset, the dataset with the condition.
        """
        from ._pipeline import Dataset
        if not isinstance(condition_name, str) or not condition_name:
            raise TypeError(f"sync_wait: condition_name must be a non-empty str, got "
                            f"{condition_name!r}")
        if isinstance(num_batch, bool) or not isinstance(num_batch, int) or num_batch < 1:
            raise ValueError(f"sync_wait: num_batch must be a positive int, got {num_batch!r}")
        if callback is not None and not callable(callback):
            raise TypeError(f"sync_wait: callback must be callable, got {callback!r}")
        if self._find_sync(condition_name) is not None:
            raise RuntimeError(f"sync_wait: condition {condition_name!r} already exists")
        return Dataset(cast("Dataset", self), "sync_wait",
                       cond=SyncCondition(condition_name, num_batch, callback))

    def sync_update(self, condition_name: str, num_batch: Optional[int] = None,
                    data: Any = None) -> None:
        """Releases a sync_wait: calls its callback with `data` and lets `num_batch` more
        batches pass.

        Args:
            condition_name (str): the condition's name.
            num_batch (int, optional): the batches to let pass (the sync_wait's num_batch
                when ``None``). Default: ``None`` .
            data (Any): passed to the callback. Default: ``None`` .
        """
        if num_batch is not None and (isinstance(num_batch, bool) or
                                      not isinstance(num_batch, int) or num_batch < 1):
            raise ValueError(f"sync_update: num_batch must be a positive int, got {num_batch!r}")
        cond = self._find_sync(condition_name)
        if cond is None:
            raise RuntimeError(f"sync_update: no sync_wait with condition_name "
                               f"{condition_name!r} in this pipeline")
        cond.release(num_batch, data)

    def _find_sync(self, name: str) -> Optional[SyncCondition]:
        d: Optional[DatasetOps] = self
        while d is not None:
            if d._kind == "sync_wait" and d._args["cond"].name == name:
                return cast(SyncCondition, d._args["cond"])
            d = d._parent
        return None
