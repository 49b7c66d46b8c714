"""Source datasets (MindSpore names): FashionMnistDataset, MnistDataset, GeneratorDataset,
NumpySlicesDataset."""
from __future__ import annotations

import os
from typing import Any, Callable, List, Optional, Sequence, Union, cast

import numpy as np

from .. import _C
from .._data.common import as_tensor, load_mnist
from ._pipeline import Dataset, _Op, _Source
from ._samplers import BuiltinSampler, SamplerArg, resolve_sampler, shuffle_shard_take


def _check_common(name: str, num_samples: Optional[int], num_parallel_workers: Optional[int],
                  num_shards: Optional[int], shard_id: Optional[int]) -> None:
    if (num_shards is None) != (shard_id is None):
        raise ValueError(f"{name}: num_shards and shard_id must be given together, got "
                         f"num_shards={num_shards!r}, shard_id={shard_id!r}")
    if num_shards is not None:
        for arg, v in (("num_shards", num_shards), ("shard_id", shard_id)):
            if isinstance(v, bool) or not isinstance(v, (int, np.integer)):
                raise TypeError(f"{name}: {arg} must be an int, got {v!r}")
        if num_shards < 1:
            raise ValueError(f"{name}: num_shards must be >= 1, got {num_shards}")
        if not 0 <= cast(int, shard_id) < num_shards:
            raise ValueError(f"{name}: shard_id must be in [0, {num_shards - 1}] for "
                             f"num_shards={num_shards}, got {shard_id}")
    if num_samples is not None and (not isinstance(num_samples, (int, np.integer))
                                    or num_samples < 0):
        raise ValueError(f"{name}: num_samples must be a non-negative int, got {num_samples!r}")
    if num_parallel_workers is not None and (not isinstance(num_parallel_workers, int)
                                             or num_parallel_workers < 1):
        raise ValueError(f"{name}: num_parallel_workers must be a positive int, got "
                         f"{num_parallel_workers!r}")


class _SourceDataset(Dataset):
    """A source with MindSpore's sampling arguments: a sampler, or shuffle (None means True),
    then this shard's rows (num_shards, shard_id), then at most num_samples rows (0 or None:
    all).

    Sharding, as MindSpore's: every shard gets ceil(rows / num_shards) rows, shard k the
    rows at positions k, k + num_shards, k + 2 * num_shards, ... of the (shuffled) order,
    wrapping to the start for the last ones, so shards are disjoint when num_shards divides
    the rows and otherwise repeat a few. The shuffle before the split is the same on every
    shard (dataset.config.set_seed's seed, or a fixed one) and changes every epoch."""

    def __init__(self, name: str, num_samples: Optional[int],
                 num_parallel_workers: Optional[int], shuffle: Optional[bool],
                 sampler: SamplerArg = None, num_shards: Optional[int] = None,
                 shard_id: Optional[int] = None, random_access: bool = True) -> None:
        super().__init__()
        self._sampler: Optional[BuiltinSampler] = resolve_sampler(
            name, sampler, num_samples, shuffle, num_shards, shard_id)
        if self._sampler is not None and not random_access:
            raise ValueError(f"{name}: a sampler needs a random-access source (with "
                             "__getitem__ and __len__)")
        _check_common(name, num_samples, num_parallel_workers, num_shards, shard_id)
        if shuffle and not random_access:
            raise ValueError(f"{name}: shuffle needs a random-access source (with __getitem__ "
                             "and __len__); use .shuffle(buffer_size) for an iterable")
        if num_shards is not None and not random_access:
            raise ValueError(f"{name}: sharding (num_shards, shard_id) needs a random-access "
                             "source (with __getitem__ and __len__)")
        self._shuffle = (shuffle is None or bool(shuffle)) and random_access
        self._num_samples = num_samples or None
        self._workers = num_parallel_workers
        self._shard = None if num_shards is None else (int(num_shards), int(cast(int, shard_id)))

    def _root_ops(self, src: _Source) -> List[_Op]:
        n = src.size or 0
        if self._sampler is not None:
            return self._sampler._ops(n, src)[0]
        shard = None if self._shard is None else (*self._shard, -1)
        return shuffle_shard_take(n, self._shuffle, shard, self._num_samples)[0]

    def _build_source(self) -> _Source:
        raise NotImplementedError

    def _make_source(self) -> _Source:
        cached: Optional[_Source] = getattr(self, "_src_cache", None)
        if cached is None:
            cached = self._build_source()
            cached.workers = self._workers
            self._src_cache = cached
        return cached


class _MnistLike(_SourceDataset):
    _name = "MnistDataset"

    def __init__(self, dataset_dir: Optional[str], usage: Optional[str],
                 num_samples: Optional[int], num_parallel_workers: Optional[int],
                 shuffle: Optional[bool], sampler: SamplerArg, num_shards: Optional[int],
                 shard_id: Optional[int]) -> None:
        super().__init__(self._name, num_samples, num_parallel_workers, shuffle, sampler,
                         num_shards, shard_id)
        usage = "all" if usage is None else usage
        if usage not in ("train", "test", "all"):
            raise ValueError(f"{self._name}: usage must be 'train', 'test' or 'all', got {usage!r}")
        self.dataset_dir, self.usage = self._resolve_dir(dataset_dir), usage

    @staticmethod
    def _resolve_dir(d: Optional[str]) -> str:
        raise NotImplementedError

    def _splits(self) -> List[str]:
        """The splits to read. 'all' reads whichever splits the folder holds, as MindSpore
        does: its MNIST download unpacks into MNIST_Data/train (train-* files only) and
        MNIST_Data/test (t10k-* files only)."""
        if self.usage != "all":
            return [self.usage]
        present = [s for s in ("train", "test") if _has_split(self.dataset_dir, s)]
        if not present:
            raise ValueError(
                f"{self._name}: no MNIST files in {self.dataset_dir!r}: expected "
                "train-images-idx3-ubyte + train-labels-idx1-ubyte and/or "
                "t10k-images-idx3-ubyte + t10k-labels-idx1-ubyte (optionally .gz)")
        return present

    def _build_source(self) -> _Source:
        splits = self._splits()
        parts = [load_mnist(self.dataset_dir, s) for s in splits]
        images = parts[0][0] if len(parts) == 1 else _C.cat([p[0] for p in parts], 0)
        labels = parts[0][1] if len(parts) == 1 else _C.cat([p[1] for p in parts], 0)
        n = images.shape[0]
        images = _C.reshape(images, (n, images.shape[1], images.shape[2], 1))
        # MindSpore's labels are uint32, which tandem tensors lack: int32 tensors, numpy
        # output (output_numpy=True) gives uint32 as long as no map touched the column.
        labels = _C.to_dtype(labels, _C.dtype.int32)
        return _Source(["image", "label"], tensors=[images, labels], size=n,
                       np_dtypes=[None, np.dtype(np.uint32)])


_SPLIT_PREFIX = {"train": "train", "test": "t10k"}


def _has_split(directory: str, split: str) -> bool:
    prefix = _SPLIT_PREFIX[split]
    return all(
        any(os.path.isfile(os.path.join(directory, f"{prefix}-{kind}{ext}")) for ext in ("", ".gz"))
        for kind in ("images-idx3-ubyte", "labels-idx1-ubyte"))


_MNIST_ARGS = """
        usage (str, optional): ``'train'`` (60000 rows), ``'test'`` (10000) or ``'all'``
            (the splits the folder holds, train first: a folder with one split's files
            reads that split); ``None`` means ``'all'``. Default: ``None`` .
        num_samples (int, optional): read only this many rows (after shuffling; 0 or ``None``
            reads all). Default: ``None`` .
        num_parallel_workers (int, optional): worker threads. Default: ``None`` .
        shuffle (bool, optional): shuffle the rows every epoch; ``None`` shuffles, as in
            MindSpore. Default: ``None`` .
        sampler (Union[Sampler, Iterable[int]], optional): the rows to read and their order
            (see :class:`tandem.dataset.Sampler`; a list of indices reads those rows);
            exclusive with shuffle, num_shards / shard_id and (for a built-in sampler)
            num_samples. Default: ``None`` .
        num_shards (int, optional): split the rows into this many shards (for data-parallel
            training; num_samples then counts the rows of one shard). Default: ``None`` .
        shard_id (int, optional): this process's shard, in [0, num_shards); given together
            with num_shards. Default: ``None`` .
        cache (None): accepted for compatibility. Default: ``None`` .
"""


class FashionMnistDataset(_MnistLike):
    __doc__ = """Fashion-MNIST (MindSpore's FashionMnistDataset): columns ``image`` (uint8
    (28, 28, 1), HWC) and ``label`` (uint32 with output_numpy=True, int32 as a Tensor).

    Args:
        dataset_dir (str, optional): the directory holding the four IDX files; ``None`` uses
            $TANDEM_FASHION_MNIST_DIR or /usr/share/datasets/fashion-mnist.
            Default: ``None`` .""" + _MNIST_ARGS

    _name = "FashionMnistDataset"

    def __init__(self, dataset_dir: Optional[str] = None, usage: Optional[str] = None,
                 num_samples: Optional[int] = None, num_parallel_workers: Optional[int] = None,
                 shuffle: Optional[bool] = None, sampler: SamplerArg = None,
                 num_shards: Optional[int] = None, shard_id: Optional[int] = None,
                 cache: Optional[object] = None) -> None:
        super().__init__(dataset_dir, usage, num_samples, num_parallel_workers, shuffle, sampler,
                         num_shards, shard_id)

    @staticmethod
    def _resolve_dir(d: Optional[str]) -> str:
        return _C.fashion_mnist_dir(d or "")


class MnistDataset(_MnistLike):
    __doc__ = """MNIST (MindSpore's MnistDataset): columns ``image`` (uint8 (28, 28, 1)) and
    ``label``, as FashionMnistDataset.

    Args:
        dataset_dir (str, optional): the directory holding the four IDX files; ``None`` uses
            $TANDEM_MNIST_DIR. Default: ``None`` .""" + _MNIST_ARGS

    _name = "MnistDataset"

    def __init__(self, dataset_dir: Optional[str] = None, usage: Optional[str] = None,
                 num_samples: Optional[int] = None, num_parallel_workers: Optional[int] = None,
                 shuffle: Optional[bool] = None, sampler: SamplerArg = None,
                 num_shards: Optional[int] = None, shard_id: Optional[int] = None,
                 cache: Optional[object] = None) -> None:
        super().__init__(dataset_dir, usage, num_samples, num_parallel_workers, shuffle, sampler,
                         num_shards, shard_id)

    @staticmethod
    def _resolve_dir(d: Optional[str]) -> str:
        d = d or os.environ.get("TANDEM_MNIST_DIR", "")
        if not d:
            raise ValueError("MnistDataset: pass dataset_dir or set TANDEM_MNIST_DIR to the "
                             "directory holding the four MNIST IDX files")
        return d


def _names(column_names: Union[str, Sequence[str], None], n: int, what: str) -> List[str]:
    if column_names is None:
        return [f"column_{i}" for i in range(n)]
    names = [column_names] if isinstance(column_names, str) else list(column_names)
    if len(names) != n or len(set(names)) != n:
        raise ValueError(f"{what}: column_names {names} must name the {n} columns, once each")
    return names


def _python_objects(row: Any) -> bool:
    """Whether a row holds values the Loader cannot turn into tensors (dicts, strings,
    bytes): such a source's rows are read in Python."""
    values = row if isinstance(row, (tuple, list)) else (row,)
    return any(isinstance(v, (dict, str, bytes, bytearray)) or
               (isinstance(v, np.ndarray) and v.dtype.kind in "USO") for v in values)


class GeneratorDataset(_SourceDataset):
    """Rows from Python (MindSpore's GeneratorDataset). A row is a tuple with one value per
    column (numpy array, number, tensor, str, or a dict, which the pipeline keeps as a
    Python object), or a single value for one column.

    Args:
        source (Union[Callable, Iterable, Random Accessible]): a random-access object
            (``__getitem__`` and ``__len__``, called by the worker threads with the GIL), an
            iterable, or a callable returning an iterator (both read in order on the
            consuming thread).
        column_names (Union[str, list[str]]): the names of the columns (required).
        column_types (list, optional): accepted for compatibility (types come from the
            data). Default: ``None`` .
        schema (object, optional): accepted for compatibility. Default: ``None`` .
        num_samples (int, optional): read only this many rows (0 or ``None``: all).
            Default: ``None`` .
        num_parallel_workers (int): worker threads for a random-access source.
            Default: ``1`` .
        shuffle (bool, optional): shuffle every epoch (random-access sources only; ``None``
            shuffles them). Default: ``None`` .
        sampler (Union[Sampler, Iterable[int]], optional): the rows to read and their order
            (see :class:`tandem.dataset.Sampler`; a list of indices reads those rows; needs a
            random-access source); exclusive with shuffle, num_shards / shard_id and (for a
            built-in sampler) num_samples. Default: ``None`` .
        num_shards (int, optional): split the rows into this many shards (random-access
            sources; num_samples then counts the rows of one shard). Default: ``None`` .
        shard_id (int, optional): this process's shard, in [0, num_shards); given together
            with num_shards. Default: ``None`` .
        python_multiprocessing (bool): accepted for compatibility (workers are threads).
            Default: ``True`` .
        max_rowsize (int, optional): accepted for compatibility. Default: ``None`` .
    """

    def __init__(self, source: Any, column_names: Union[str, Sequence[str], None] = None,
                 column_types: Optional[Sequence[Any]] = None, schema: Optional[object] = None,
                 num_samples: Optional[int] = None, num_parallel_workers: int = 1,
                 shuffle: Optional[bool] = None, sampler: SamplerArg = None,
                 num_shards: Optional[int] = None, shard_id: Optional[int] = None,
                 python_multiprocessing: bool = True, max_rowsize: Optional[int] = None) -> None:
        random_access = hasattr(source, "__getitem__") and hasattr(source, "__len__")
        if not random_access and not (hasattr(source, "__iter__") or callable(source)):
            raise TypeError("GeneratorDataset: source must be random-access (__getitem__ and "
                            "__len__), iterable, or a callable returning an iterator")
        if column_names is None:
            raise ValueError("GeneratorDataset: column_names is required")
        super().__init__("GeneratorDataset", num_samples, num_parallel_workers, shuffle, sampler,
                         num_shards, shard_id, random_access)
        self.source, self.column_names = source, _names(column_names, len(
            [column_names] if isinstance(column_names, str) else column_names), "GeneratorDataset")
        self._random_access = random_access

    def _build_source(self) -> _Source:
        if self._random_access:
            n = len(self.source)  # row 0 tells whether the rows hold Python objects
            return _Source(self.column_names, pyobj=self.source, size=n,
                           python_rows=n > 0 and _python_objects(self.source[0]))
        src = self.source
        factory: Callable[[], Any] = ((lambda: iter(src)) if hasattr(src, "__iter__")
                                      else (lambda: iter(src())))
        return _Source(self.column_names, iterable=factory)


class _Slices:
    """Random access to the rows of numpy columns (string columns included)."""

    def __init__(self, columns: List[np.ndarray]) -> None:
        self.columns = columns

    def __len__(self) -> int:
        return len(self.columns[0])

    def __getitem__(self, i: int) -> Any:
        return tuple(c[i] for c in self.columns)


class NumpySlicesDataset(_SourceDataset):
    """Rows sliced along dim 0 of in-memory data (MindSpore's NumpySlicesDataset). Numeric
    columns are held as tensors, so the Loader gathers batches without Python; string
    columns stay numpy arrays (rows then come from Python).

    Args:
        data (Union[list, tuple, dict, numpy.ndarray, Tensor]): a list or array (one column),
            a tuple (one column per element) or a dict (one column per key, named by it).
        column_names (Union[str, list[str]], optional): the names of the columns
            (``column_0``, ... or the dict's keys when ``None``). Default: ``None`` .
        num_samples (int, optional): read only this many rows (0 or ``None``: all).
            Default: ``None`` .
        num_parallel_workers (int): worker threads. Default: ``1`` .
        shuffle (bool, optional): shuffle every epoch; ``None`` shuffles. Default: ``None`` .
        sampler (Union[Sampler, Iterable[int]], optional): the rows to read and their order
            (see :class:`tandem.dataset.Sampler`; a list of indices reads those rows; needs a
            random-access source); exclusive with shuffle, num_shards / shard_id and (for a
            built-in sampler) num_samples. Default: ``None`` .
        num_shards (int, optional): split the rows into this many shards (random-access
            sources; num_samples then counts the rows of one shard). Default: ``None`` .
        shard_id (int, optional): this process's shard, in [0, num_shards); given together
            with num_shards. Default: ``None`` .
    """

    def __init__(self, data: Any, column_names: Union[str, Sequence[str], None] = None,
                 num_samples: Optional[int] = None, num_parallel_workers: int = 1,
                 shuffle: Optional[bool] = None, sampler: SamplerArg = None,
                 num_shards: Optional[int] = None, shard_id: Optional[int] = None) -> None:
        super().__init__("NumpySlicesDataset", num_samples, num_parallel_workers, shuffle,
                         sampler, num_shards, shard_id)
        if isinstance(data, dict):
            names, cols = list(data.keys()), list(data.values())
            if column_names is not None:
                names = _names(column_names, len(cols), "NumpySlicesDataset")
        elif isinstance(data, tuple):
            cols = list(data)
            names = _names(column_names, len(cols), "NumpySlicesDataset")
        else:
            cols = [data]
            names = _names(column_names, 1, "NumpySlicesDataset")
        arrays: List[Any] = [c if isinstance(c, _C.Tensor) else np.asarray(c) for c in cols]
        if any(len(a.shape) == 0 for a in arrays):
            raise ValueError("NumpySlicesDataset: each column needs a dim 0 to slice, got a "
                             "scalar")
        if len({a.shape[0] for a in arrays}) != 1:
            raise ValueError("NumpySlicesDataset: columns have different lengths "
                             f"{[a.shape[0] for a in arrays]}")
        self._strings = any(isinstance(a, np.ndarray) and a.dtype.kind in "USO" for a in arrays)
        self.column_names = names
        self._columns = arrays if self._strings else [as_tensor(a) for a in arrays]

    def _build_source(self) -> _Source:
        n = self._columns[0].shape[0]
        if self._strings:
            cols = [c.numpy() if isinstance(c, _C.Tensor) else c for c in self._columns]
            return _Source(self.column_names, pyobj=_Slices(cols), size=n, python_rows=True)
        return _Source(self.column_names, tensors=self._columns, size=n)
