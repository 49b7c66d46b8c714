"""MindDataset: the rows of files written by tandem.mindrecord.FileWriter; Dataset.save, which
writes them."""
from __future__ import annotations

from typing import TYPE_CHECKING, Any, Dict, List, Optional, Sequence, Union

import numpy as np

from ..mindrecord import FileWriter, _open
from ._pipeline import _Source
from ._samplers import SamplerArg
from ._sources import _SourceDataset

if TYPE_CHECKING:
    from ._pipeline import Dataset


class _MindRows:
    """Random access to the rows of several files, in file order."""

    def __init__(self, readers: List[Any], columns: List[str]) -> None:
        self.readers, self.columns = readers, columns
        self.starts = np.cumsum([0] + [len(r) for r in readers])

    def __len__(self) -> int:
        return int(self.starts[-1])

    def __getitem__(self, i: int) -> Any:
        k = int(np.searchsorted(self.starts, i, side="right")) - 1
        row = self.readers[k].row(i - int(self.starts[k]))
        return tuple(_value(row[c]) for c in self.columns)

    def column(self, name: str) -> List[Any]:
        return [r.row(i)[name] for r in self.readers for i in range(len(r))]


class MindDataset(_SourceDataset):
    """Reads MindRecord files written by ``tandem.mindrecord.FileWriter`` or Dataset.save
    (MindSpore's MindDataset; the files use tandem's format, see tandem.mindrecord). Columns
    come in name order, as MindSpore lists them; number fields are numpy arrays of the
    schema's dtype (Tensors when iterated), string fields numpy str scalars (tandem has no
    string tensors), bytes fields uint8 arrays.

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
        sampler (Union[Sampler, Iterable[int]], optional): the rows to read and their order
            (a PKSampler's class_column may be any field of the files); exclusive with
            shuffle, num_shards / shard_id and (for a built-in sampler) num_samples.
            Default: ``None`` .
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
                 sampler: SamplerArg = None, padded_sample: Optional[object] = None,
                 num_padded: Optional[int] = None, num_samples: Optional[int] = None,
                 cache: Optional[object] = None) -> None:
        for name, v in (("padded_sample", padded_sample), ("num_padded", num_padded)):
            if v is not None:
                raise NotImplementedError(f"MindDataset: {name} is not supported (must be None)")
        super().__init__("MindDataset", num_samples, None, shuffle, sampler, num_shards,
                         shard_id)
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
        self._columns, self._schema = names, schema

    def _build_source(self) -> _Source:
        rows = _MindRows(self._readers, self._columns)

        def column(name: str) -> List[Any]:
            if name not in self._schema:
                raise ValueError(f"MindDataset: class_column {name!r} not in the schema "
                                 f"{sorted(self._schema)}")
            return rows.column(name)
        return _Source(self._columns, pyobj=rows, size=len(rows), python_rows=True,
                       column_reader=column)


def _value(v: Any) -> Any:
    return np.array(v) if isinstance(v, str) else v


# Dataset.save: numpy dtype kind/size -> MindRecord type (MindSpore's implicit casts).
_SAVE_TYPES = {"b": "int32", "i1": "int32", "i2": "int32", "i4": "int32", "i8": "int64",
               "u1": "int32", "u2": "int32", "u4": "int64", "u8": "int64", "f2": "float32",
               "f4": "float32", "f8": "float64"}


def _field(name: str, v: Any) -> Dict[str, Any]:
    """The schema field for a column, from its first value."""
    if isinstance(v, (bytes, bytearray)):
        return {"type": "bytes"}
    a = np.asarray(v)
    if a.dtype.kind in "US":
        if a.ndim:
            raise ValueError(f"save: column {name!r} holds a multi-dimensional string array, "
                             "which MindRecord cannot store")
        return {"type": "string"}
    key = "b" if a.dtype.kind == "b" else f"{a.dtype.kind}{a.dtype.itemsize}"
    if key not in _SAVE_TYPES:
        raise TypeError(f"save: column {name!r} has values of type {type(v).__name__} "
                        f"(dtype {a.dtype}), which MindRecord cannot store")
    field: Dict[str, Any] = {"type": _SAVE_TYPES[key]}
    if a.ndim:
        field["shape"] = [-1] + [int(d) for d in a.shape[1:]]
    return field


def _encode(v: Any, field: Dict[str, Any]) -> Any:
    if field["type"] == "bytes":
        return bytes(v)
    if field["type"] == "string":
        return str(np.asarray(v))
    return np.asarray(v).astype(field["type"])


def save_dataset(ds: "Dataset", file_name: str, num_files: int, file_type: str) -> None:
    """Dataset.save (see its docstring)."""
    if file_type != "mindrecord":
        raise ValueError(f"save: file_type must be 'mindrecord', got {file_type!r}")
    if not isinstance(file_name, str) or not file_name:
        raise ValueError(f"save: file_name must be a non-empty path, got {file_name!r}")
    if isinstance(num_files, bool) or not isinstance(num_files, int) or \
            not 1 <= num_files <= 1000:
        raise ValueError(f"save: num_files must be an int in [1, 1000], got {num_files!r}")
    names = [file_name] if num_files == 1 else [f"{file_name}{i}" for i in range(num_files)]
    writers = [FileWriter(n) for n in names]  # raises if a file exists, before any work
    try:
        fields: Optional[Dict[str, Dict[str, Any]]] = None
        pending: List[List[Dict[str, Any]]] = [[] for _ in writers]
        it = ds.create_dict_iterator(num_epochs=1, output_numpy=True)
        for k, row in enumerate(it):
            if fields is None:
                fields = {c: _field(c, v) for c, v in row.items()}
                for w in writers:
                    w.add_schema(fields, "saved by tandem.dataset.Dataset.save")
            bad = [c for c, v in row.items() if isinstance(v, dict)]
            if bad:
                raise TypeError(f"save: column {bad[0]!r} holds dicts, which MindRecord cannot "
                                "store")
            pending[k % num_files].append({c: _encode(v, fields[c]) for c, v in row.items()})
            if len(pending[k % num_files]) >= 256:
                writers[k % num_files].write_raw_data(pending[k % num_files])
                pending[k % num_files] = []
        if fields is None:
            raise ValueError("save: the dataset has no rows")
        for w, rows in zip(writers, pending):
            if rows:
                w.write_raw_data(rows)
        for w in writers:
            w.commit()
    except BaseException:
        for w in writers:  # uncommitted writers drop their temporary files
            w.__del__()
        raise
