"""MindDataset: the rows of files written by tandem.mindrecord.FileWriter."""
from __future__ import annotations

from typing import Any, Iterator, Optional, Sequence, Tuple, Union

import numpy as np

from .._data.common import draw_seed
from ..mindrecord import _open
from . import _config
from ._engine import shard_positions
from ._pipeline import Dataset, _Source
from ._sources import _SHARD_SEED, _check_common


class MindDataset(Dataset):
    """Reads MindRecord files written by ``tandem.mindrecord.FileWriter`` (MindSpore's
    MindDataset; the files use tandem's format, see tandem.mindrecord). Columns come in
    name order, as MindSpore lists them; number fields are numpy arrays of the schema's
    dtype (Tensors when iterated), string fields numpy str scalars (tandem has no string
    tensors), bytes fields bytes.

    Args:
        dataset_files (Union[str, list[str]]): the file or files (read in order).
        columns_list (list[str], optional): the columns to read (all when ``None``).
            Default: ``None`` .
        num_parallel_workers (int, optional): accepted for compatibility. Default: ``None`` .
        shuffle (bool, optional): shuffle the rows every epoch; ``None`` shuffles, as in
            MindSpore. Default: ``None`` .
        num_shards (int, optional): split the rows over this many shards (data-parallel
            ranks), MindSpore's way: each shard reads ceil(rows / num_shards) rows, shard k
            the rows at positions k, k + num_shards, ... of the shuffled order (the same
            order on every shard: ``dataset.config.set_seed``'s seed or a fixed one, changing
            every epoch), wrapping to the start for the last ones. Default: ``None`` .
        shard_id (int, optional): this shard, in [0, num_shards). Default: ``None`` .
        sampler (None): not supported (must be ``None``). Default: ``None`` .
        padded_sample (None): not supported (must be ``None``). Default: ``None`` .
        num_padded (None): not supported (must be ``None``). Default: ``None`` .
        num_samples (int, optional): read only this many rows (0 or ``None``: all).
            Default: ``None`` .
        cache (None): accepted for compatibility. Default: ``None`` .
    """

    def __init__(self, dataset_files: Union[str, Sequence[str]],
                 columns_list: Optional[Sequence[str]] = None,
                 num_parallel_workers: Optional[int] = None, shuffle: Optional[bool] = None,
                 num_shards: Optional[int] = None, shard_id: Optional[int] = None,
                 sampler: Optional[object] = None, padded_sample: Optional[object] = None,
                 num_padded: Optional[int] = None, num_samples: Optional[int] = None,
                 cache: Optional[object] = None) -> None:
        super().__init__()
        for name, v in (("padded_sample", padded_sample), ("num_padded", num_padded)):
            if v is not None:
                raise NotImplementedError(f"MindDataset: {name} is not supported (must be None)")
        _check_common("MindDataset", num_samples, None, sampler, num_shards, shard_id)
        self._shard = None if num_shards is None else (int(num_shards), int(shard_id or 0))
        self._epoch = 0
        self._readers = _open(dataset_files)
        schema = self._readers[0].schema
        for r in self._readers[1:]:
            if r.schema != schema:
                raise ValueError(f"MindDataset: {r.file_name!r} has a different schema from "
                                 f"{self._readers[0].file_name!r}")
        names = sorted(schema)
        if columns_list is not None:
            for c in columns_list:
                if c not in schema:
                    raise ValueError(f"MindDataset: column {c!r} not in the schema {names}")
            names = list(columns_list)
        self._columns = names
        self._shuffle = shuffle is None or bool(shuffle)
        total = sum(len(r) for r in self._readers)
        if self._shard is not None:
            total = len(shard_positions(total, *self._shard))
        self._n = total if not num_samples else min(num_samples, total)

    def _rows(self) -> Iterator[Tuple[Any, ...]]:
        index = [(k, i) for k, r in enumerate(self._readers) for i in range(len(r))]
        self._epoch += 1
        if self._shuffle:
            seed = _config.get_seed()
            if self._shard is not None:  # every shard must split the same order
                sd = _SHARD_SEED if seed is None else seed
                rng = np.random.default_rng([sd & 0xFFFFFFFF, sd >> 32, self._epoch])
            else:
                rng = np.random.default_rng(draw_seed() if seed is None else seed)
            index = [index[j] for j in rng.permutation(len(index))]
        if self._shard is not None:
            index = [index[j] for j in shard_positions(len(index), *self._shard)]
        for k, i in index[:self._n]:
            row = self._readers[k].row(i)
            yield tuple(_value(row[c]) for c in self._columns)

    def _make_source(self) -> _Source:
        return _Source(self._columns, iterable=self._rows, size=self._n)


def _value(v: Any) -> Any:
    return np.array(v) if isinstance(v, str) else v
