"""torch.utils.data.DataLoader on tandem's C++ Loader.

Three paths, chosen from the dataset:
  * TensorDataset (and FashionMNIST, whose built-in transforms become C++ transform chains),
    possibly inside Subsets: the Loader gathers / transforms / stacks batches on C++ worker
    threads (num_workers of them; 0 builds batches on the calling thread), no Python per
    sample;
  * any other map-style dataset: the workers call its __getitem__ (holding the GIL just for
    that call) and stack the fields in C++;
  * collate_fn given: the Loader only draws the sample order; samples are fetched and
    collate_fn is called in Python.
Workers are threads, not processes. The shuffle order is seeded by a value drawn from
tandem's global generator when the DataLoader is built (tandem.manual_seed fixes it); each
pass over the DataLoader is a new epoch with a new deterministic order. As in PyTorch,
several passes may be live at once (``zip(loader, loader)``, an evaluation pass inside a
training pass): a pass started while another is still running gets its own Loader.
"""
from __future__ import annotations

import weakref
from typing import Any, Callable, Dict, Generic, Iterator, List, Optional, Protocol, TypeVar

import numpy as np

from ... import _C
from ..._data.common import as_tensor, draw_seed, new_loader
from .dataset import Subset, TensorDataset

__all__ = ["DataLoader", "default_collate"]

T_co = TypeVar("T_co", covariant=True)


class _MapStyle(Protocol[T_co]):
    """What a DataLoader reads: ``dataset[i]`` for i in ``range(len(dataset))``."""

    def __getitem__(self, index: int, /) -> T_co: ...

    def __len__(self) -> int: ...


class _Sampler(Protocol):
    """A sample order: an iterable of indices with a length."""

    def __iter__(self) -> Iterator[int]: ...

    def __len__(self) -> int: ...


def default_collate(batch: List[Any]) -> Any:
    """PyTorch's default_collate: stacks tensors / arrays, turns numbers into int64 /
    float64 / bool tensors, keeps strings as lists, and recurses into tuples, lists and
    dicts.

    Args:
        batch (List[Any]): the samples of one batch.

    Returns:
        Any: a Tensor for tensor / array / number samples, a list of strings, or a list /
        dict of collated fields for tuple / list / dict samples.
    """
    elem = batch[0]
    if isinstance(elem, _C.Tensor):
        return _C.stack(list(batch), 0)
    if isinstance(elem, (np.ndarray, np.generic)):
        return _C.stack([as_tensor(np.asarray(b)) for b in batch], 0)
    if isinstance(elem, bool):
        return as_tensor(np.array(batch, dtype=np.bool_))
    if isinstance(elem, int):
        return as_tensor(np.array(batch, dtype=np.int64))
    if isinstance(elem, float):
        return as_tensor(np.array(batch, dtype=np.float64))
    if isinstance(elem, (str, bytes)):
        return list(batch)
    if isinstance(elem, dict):
        return {k: default_collate([d[k] for d in batch]) for k in elem}
    if isinstance(elem, (tuple, list)):
        n = len(elem)
        if any(len(b) != n for b in batch):
            raise RuntimeError("default_collate: each element in list of batch should be of "
                               "equal size")
        return [default_collate(list(s)) for s in zip(*batch)]
    raise TypeError(f"default_collate: batch must contain tensors, numpy arrays, numbers, dicts "
                    f"or lists; found {type(elem).__name__}")


def _stackable(x: Any) -> bool:
    """Whether the C++ Loader can stack this field itself: a tensor, an array or a number.
    Anything else (nested tuples, dicts, strings) is collated in Python, as PyTorch does."""
    return isinstance(x, (_C.Tensor, np.ndarray, np.generic, int, float))


def _convert(sample: Any) -> Any:
    """PyTorch's default_convert (batch_size=None): numpy arrays become tensors, recursively."""
    if isinstance(sample, np.ndarray):
        return as_tensor(sample)
    if isinstance(sample, dict):
        return {k: _convert(v) for k, v in sample.items()}
    if isinstance(sample, tuple) and not hasattr(sample, "_fields"):
        return tuple(_convert(v) for v in sample)
    if isinstance(sample, list):
        return [_convert(v) for v in sample]
    return sample


class _Rows:
    """Presents a dataset whose samples are lists or dicts as one returning tuples."""

    def __init__(self, dataset: _MapStyle[Any], keys: Optional[List[Any]]) -> None:
        self.dataset, self.keys = dataset, keys

    def __len__(self) -> int:
        return len(self.dataset)

    def __getitem__(self, i: int) -> tuple:  # type: ignore[type-arg]
        s = self.dataset[i]
        return tuple(s[k] for k in self.keys) if self.keys is not None else tuple(s)


class DataLoader(Generic[T_co]):
    """Batches of a map-style dataset: lists of tensors for tuple samples (so
    ``x, y = batch`` works), a tensor for tensor samples, a dict for dict samples; with
    `collate_fn`, whatever it returns. Iterating yields ``Any``, as PyTorch types it, since
    the batch's type depends on the samples and the collate function.

    Args:
        dataset (Dataset): a map-style dataset (``__getitem__`` and ``__len__``).
        batch_size (int, optional): samples per batch; ``None`` yields single samples
            without a batch dim. Default: ``1``.
        shuffle (bool, optional): reshuffle the samples every epoch (seeded from tandem's
            global generator when the DataLoader is built). Default: ``False``.
        sampler (Iterable[int], optional): an explicit sample order with a length (exclusive
            with `shuffle`). Default: ``None``.
        batch_sampler (None): not supported (must be ``None``). Default: ``None``.
        num_workers (int): C++ worker threads building batches; 0 builds them on the
            calling thread. Default: ``0``.
        collate_fn (Callable, optional): turns a list of samples into a batch, in Python
            (the Loader then only draws the order). Default: ``None``.
        pin_memory (bool): accepted for PyTorch code (no device memory). Default: ``False``.
        drop_last (bool): drop the last batch when it is smaller than `batch_size`.
            Default: ``False``.
        timeout (float): not supported (must be 0). Default: ``0``.
        worker_init_fn (None): not supported (workers are threads). Default: ``None``.
        multiprocessing_context (None): not supported. Default: ``None``.
        generator (mint.Generator, optional): the generator the shuffle seed is drawn from
            (the global one when None). Default: ``None``.
        prefetch_factor (int, optional): batches prepared ahead (2 when ``None``).
            Default: ``None``.
        persistent_workers (bool): accepted for PyTorch code (threads are cheap to start).
            Default: ``False``.
        pin_memory_device (str): accepted for PyTorch code. Default: ``''``.
    """

    def __init__(self, dataset: _MapStyle[T_co], batch_size: Optional[int] = 1,
                 shuffle: Optional[bool] = False, sampler: Optional[_Sampler] = None,
                 batch_sampler: Optional[object] = None, num_workers: int = 0,
                 collate_fn: Optional[Callable[[List[T_co]], Any]] = None,
                 pin_memory: bool = False, drop_last: bool = False, timeout: float = 0,
                 worker_init_fn: Optional[Callable[[int], None]] = None,
                 multiprocessing_context: Optional[object] = None,
                 generator: Optional[object] = None, *, prefetch_factor: Optional[int] = None,
                 persistent_workers: bool = False, pin_memory_device: str = "") -> None:
        if batch_sampler is not None or worker_init_fn is not None \
                or multiprocessing_context is not None or timeout:
            raise NotImplementedError("DataLoader: batch_sampler, worker_init_fn, "
                                      "multiprocessing_context and timeout are not supported "
                                      "(workers are C++ threads; seed with tandem.manual_seed)")
        from ...mint._compat import Generator
        if generator is not None and not isinstance(generator, Generator):
            raise TypeError(f"DataLoader: generator must be a mint.Generator, got "
                            f"{type(generator).__name__}")
        if not (hasattr(dataset, "__getitem__") and hasattr(dataset, "__len__")):
            raise TypeError(f"DataLoader: dataset must be map-style (__getitem__ and __len__), "
                            f"got {type(dataset).__name__}")
        if sampler is not None and shuffle:
            raise ValueError("DataLoader: sampler option is mutually exclusive with shuffle")
        if batch_size is not None and (not isinstance(batch_size, int) or batch_size <= 0):
            raise ValueError(f"DataLoader: batch_size should be a positive integer value, "
                             f"got {batch_size!r}")
        if not isinstance(num_workers, int) or num_workers < 0:
            raise ValueError(f"DataLoader: num_workers should be a non-negative integer, "
                             f"got {num_workers!r}")
        self.dataset, self.batch_size, self.shuffle = dataset, batch_size, bool(shuffle)
        self.sampler, self.num_workers, self.collate_fn = sampler, num_workers, collate_fn
        self.drop_last, self.pin_memory = bool(drop_last), pin_memory
        self.prefetch_factor = 2 if prefetch_factor is None else int(prefetch_factor)
        if generator is not None:  # the shuffle seed comes from the given generator
            with generator:
                self._seed = draw_seed()
        else:
            self._seed = draw_seed()
        self._build()

    def _build(self) -> None:
        ds: Any = self.dataset
        idx: Any = None
        if self.collate_fn is None:  # Subsets only remap indices: the Loader does that
            while type(ds) is Subset:
                idx = ds.indices if idx is None else [ds.indices[i] for i in idx]
                ds = ds.dataset
        self._base, self._indices = ds, None if idx is None else np.asarray(idx, dtype=np.int64)
        bs = 1 if self.batch_size is None else self.batch_size
        custom = self.sampler is not None or self._indices is not None
        common: Dict[str, Any] = dict(batch_size=bs, shuffle=self.shuffle and not custom,
                                      drop_last=self.drop_last and self.batch_size is not None,
                                      seed=self._seed, prefetch=self.prefetch_factor)
        self._keys: Optional[List[Any]] = None
        self._single = False
        source: Any
        sample: Any = ()
        nested = False
        if self.collate_fn is None and not isinstance(ds, TensorDataset) and \
                getattr(ds, "_tandem_loader_spec", None) is None:
            sample = ds[0] if len(ds) else ()
            fields = list(sample.values()) if isinstance(sample, dict) else \
                list(sample) if isinstance(sample, (tuple, list)) else [sample]
            nested = not all(_stackable(f) for f in fields)
        if nested:  # default_collate in Python, over the dataset as given
            ds, self._base, self._indices = self.dataset, self.dataset, None
            common["shuffle"] = self.shuffle and self.sampler is None
        if self.collate_fn is not None or nested:
            self._mode = "collate"
            src = [_C.arange(0, len(ds), 1, _C.dtype.int64)]
            self._make(src, 1, [], num_workers=0, **common)
            return
        if isinstance(ds, TensorDataset):
            self._mode = "tensor"
            self._make(list(ds.tensors), len(ds.tensors), [], num_workers=self.num_workers,
                       **common)
            return
        spec = getattr(ds, "_tandem_loader_spec", None)
        if spec is not None:
            tensors, chains = spec()
            self._mode = "tensor"
            self._make(list(tensors), len(tensors), chains, num_workers=self.num_workers,
                       **common)
            return
        self._mode = "python"
        if isinstance(sample, dict):
            self._keys = list(sample.keys())
            source, ncols = _Rows(ds, self._keys), len(self._keys)
        elif isinstance(sample, (tuple, list)):
            source = ds if isinstance(sample, tuple) else _Rows(ds, None)
            ncols = max(len(sample), 1)
        else:
            source, ncols, self._single = ds, 1, True
        self._make(source, ncols, [], num_workers=self.num_workers, **common)

    def _make(self, *args: Any, **kwargs: Any) -> None:
        """Builds the primary Loader and keeps its arguments for the extra ones that
        overlapping passes need."""
        self._loader_args = (args, kwargs)
        self._loader = new_loader(*args, **kwargs)
        self._active: Optional["weakref.ref[_Iter]"] = None
        self._passes = 0

    def _source_len(self) -> int:
        return len(self._base)

    def __len__(self) -> int:
        n = len(self.sampler) if self.sampler is not None else len(self.dataset)
        if self.batch_size is None:
            return n
        return n // self.batch_size if self.drop_last else -(-n // self.batch_size)

    def _order(self, epoch: Optional[int] = None) -> Optional[List[int]]:
        """This epoch's sample indices into the Loader's source, when not the Loader's own
        (``epoch`` given: an explicit shuffled order for an extra Loader)."""
        extra = epoch is not None
        if epoch is None:
            epoch = self._loader.epoch + 1
        if self.sampler is not None:
            pos = np.fromiter((int(i) for i in self.sampler), dtype=np.int64)
        elif self._indices is not None:
            pos = np.arange(len(self._indices), dtype=np.int64)
            if self.shuffle:
                rng = np.random.default_rng([self._seed & 0xFFFFFFFF, self._seed >> 32, epoch])
                pos = rng.permutation(pos)
        elif extra and self.shuffle:
            n = self._source_len()
            rng = np.random.default_rng([self._seed & 0xFFFFFFFF, self._seed >> 32, epoch,
                                         0x5EED])
            perm: List[int] = rng.permutation(n).tolist()
            return perm
        else:
            return None
        order: List[int] = (pos if self._indices is None else self._indices[pos]).tolist()
        return order

    def __iter__(self) -> Iterator[Any]:
        """Starts a pass (an epoch) over the dataset. Passes are independent: one started
        while another is still running does not disturb it (it runs on its own Loader).

        Returns:
            Iterator[Any]: the batches.
        """
        self._passes += 1
        live = self._active() if self._active is not None else None
        if live is None or live._done:
            it = _Iter(self, self._loader, self._order())
            self._active = weakref.ref(it)
            return it
        args, kwargs = self._loader_args
        extra = new_loader(*args, **kwargs)
        return _Iter(self, extra, self._order(self._passes))

    def __repr__(self) -> str:
        return (f"DataLoader(dataset={type(self.dataset).__name__}, "
                f"batch_size={self.batch_size}, shuffle={self.shuffle}, "
                f"num_workers={self.num_workers}, drop_last={self.drop_last})")


class _Iter(Iterator[Any]):
    """One pass over a DataLoader, on one C++ Loader."""

    def __init__(self, dl: DataLoader[Any], loader: Any, order: Optional[List[int]]) -> None:
        self._dl, self._loader, self._done = dl, loader, False
        loader.start_epoch(order)

    def __iter__(self) -> "_Iter":
        return self

    def __len__(self) -> int:
        return len(self._dl)

    def __next__(self) -> Any:
        dl = self._dl
        if self._done:
            raise StopIteration
        b = self._loader.next()
        if not b:
            self._done = True
            raise StopIteration
        if dl._mode == "collate":
            idx = b[0].numpy().tolist()
            if dl.collate_fn is None:  # nested samples: PyTorch's default collation
                if dl.batch_size is None:
                    return _convert(dl.dataset[idx[0]])
                return default_collate([dl.dataset[i] for i in idx])
            if dl.batch_size is None:
                return dl.collate_fn(dl.dataset[idx[0]])
            return dl.collate_fn([dl.dataset[i] for i in idx])
        if dl.batch_size is None:
            b = [t[0] for t in b]
        if dl._keys is not None:
            return dict(zip(dl._keys, b))
        return b[0] if dl._single else b
