"""MindRecord under MindSpore's API (``mindspore.mindrecord``): ``FileWriter`` writes rows that
follow a schema, ``FileReader`` and ``tandem.dataset.MindDataset`` read them back.

The file format is tandem's own, not MindSpore's: MindSpore documents the API (schema field
types, ``add_schema`` / ``write_raw_data`` / ``commit``) but not the byte layout of its shard
files and their SQLite index, so files are not interchangeable between the two. A file is::

    b"TDMREC1\\n"                      magic
    rows                               each field: kind (u8), ndim (u8), shape (i64 each),
                                       nbytes (u64), bytes (little-endian numbers, UTF-8)
    footer (JSON, UTF-8)               schema, description, per row [offset, length, crc32]
    footer length (u64) + b"TDMREC1\\n" so a truncated file is detected

``commit`` writes to a temporary file in the same directory, fsyncs it and renames it into
place, so a reader never sees a half-written file; every read checks the magic, the footer,
each row's bounds and CRC-32, and the values against the schema, and raises ValueError
naming the file otherwise.
"""
from __future__ import annotations

import json
import os
import struct
import tempfile
import zlib
from typing import Any, Dict, Iterator, List, Optional, Sequence, Union

import numpy as np

__all__ = ["FileWriter", "FileReader", "SUPPORTED_TYPES"]

MAGIC = b"TDMREC1\n"
_VERSION = 1
#: Schema field types and the numpy dtypes they store.
SUPPORTED_TYPES = {"int32": np.int32, "int64": np.int64, "float32": np.float32,
                   "float64": np.float64, "string": None, "bytes": None}
_KIND = {"num": 0, "string": 1, "bytes": 2}


def _check_schema(schema: Any) -> Dict[str, Dict[str, Any]]:
    if not isinstance(schema, dict) or not schema:
        raise ValueError(f"FileWriter.add_schema: schema must be a non-empty dict of "
                         f"field -> {{'type': ..., 'shape': [...]}}, got {schema!r}")
    out: Dict[str, Dict[str, Any]] = {}
    for name, spec in schema.items():
        if not isinstance(name, str) or not name:
            raise ValueError(f"FileWriter.add_schema: field names must be non-empty strings, "
                             f"got {name!r}")
        if not isinstance(spec, dict) or spec.get("type") not in SUPPORTED_TYPES:
            raise ValueError(f"FileWriter.add_schema: field {name!r}: 'type' must be one of "
                             f"{sorted(SUPPORTED_TYPES)}, got {spec!r}")
        field: Dict[str, Any] = {"type": spec["type"]}
        if "shape" in spec:
            shape = spec["shape"]
            if spec["type"] in ("string", "bytes"):
                raise ValueError(f"FileWriter.add_schema: field {name!r}: a {spec['type']} "
                                 "field has no shape")
            if (not isinstance(shape, (list, tuple)) or not shape
                    or any(not isinstance(d, int) or (d < 1 and d != -1) for d in shape)
                    or list(shape).count(-1) > 1):
                raise ValueError(f"FileWriter.add_schema: field {name!r}: shape must be a "
                                 f"list of positive ints with at most one -1, got {shape!r}")
            field["shape"] = [int(d) for d in shape]
        extra = set(spec) - {"type", "shape"}
        if extra:
            raise ValueError(f"FileWriter.add_schema: field {name!r}: unknown keys "
                             f"{sorted(extra)} (only 'type' and 'shape')")
        out[name] = field
    return out


def _encode(name: str, spec: Dict[str, Any], value: Any) -> bytes:
    t = spec["type"]
    if t == "string":
        if not isinstance(value, str):
            raise TypeError(f"FileWriter.write_raw_data: field {name!r} is a string, got "
                            f"{type(value).__name__}")
        data = value.encode("utf-8")
        return struct.pack("<BBQ", _KIND["string"], 0, len(data)) + data
    if t == "bytes":
        if not isinstance(value, (bytes, bytearray)):
            raise TypeError(f"FileWriter.write_raw_data: field {name!r} is bytes, got "
                            f"{type(value).__name__}")
        return struct.pack("<BBQ", _KIND["bytes"], 0, len(value)) + bytes(value)
    dt = np.dtype(SUPPORTED_TYPES[t]).newbyteorder("<")
    a = np.asarray(value)
    if a.dtype.kind not in "biuf":
        raise TypeError(f"FileWriter.write_raw_data: field {name!r} ({t}) got a value of "
                        f"dtype {a.dtype}")
    if a.dtype.kind == "f" and dt.kind == "i" and not np.all(np.isfinite(a) & (a == np.round(a))):
        raise ValueError(f"FileWriter.write_raw_data: field {name!r} is {t}, got non-integer "
                         "values")
    shape = spec.get("shape")
    if shape is None:
        if a.ndim != 0:
            raise ValueError(f"FileWriter.write_raw_data: field {name!r} has no shape in the "
                             f"schema (a scalar), got shape {list(a.shape)}")
    else:
        ok = a.ndim == len(shape) and all(d == -1 or d == s for d, s in zip(shape, a.shape))
        if not ok:
            raise ValueError(f"FileWriter.write_raw_data: field {name!r} must have shape "
                             f"{shape} (-1: any size), got {list(a.shape)}")
    body = np.ascontiguousarray(a.astype(dt, copy=False)).tobytes()
    return (struct.pack("<BB", _KIND["num"], a.ndim) + struct.pack(f"<{a.ndim}q", *a.shape)
            + struct.pack("<Q", len(body)) + body)


class FileWriter:
    """Writes rows that follow a schema to a MindRecord-style file (tandem's format, see the
    module docstring).

    Args:
        file_name (str): the file to write.
        shard_num (int): the number of files; only 1 is supported. Default: ``1`` .
        overwrite (bool): replace an existing file (else writing to it raises).
            Default: ``False`` .
    """

    def __init__(self, file_name: str, shard_num: int = 1, overwrite: bool = False) -> None:
        if not isinstance(file_name, str) or not file_name:
            raise ValueError(f"FileWriter: file_name must be a non-empty path, got {file_name!r}")
        if shard_num != 1:
            raise ValueError(f"FileWriter: shard_num={shard_num} is not supported (only 1); "
                             "write one file per shard with separate writers")
        if os.path.exists(file_name) and not overwrite:
            raise RuntimeError(f"FileWriter: {file_name!r} exists; pass overwrite=True to "
                               "replace it")
        directory = os.path.dirname(os.path.abspath(file_name))
        if not os.path.isdir(directory):
            raise ValueError(f"FileWriter: the directory of {file_name!r} does not exist")
        self.file_name = file_name
        self._schema: Optional[Dict[str, Dict[str, Any]]] = None
        self._desc = ""
        self._index_fields: List[str] = []
        fd, self._tmp = tempfile.mkstemp(prefix=os.path.basename(file_name) + ".",
                                         suffix=".partial", dir=directory)
        self._f = os.fdopen(fd, "wb")
        self._f.write(MAGIC)
        self._rows: List[List[int]] = []
        self._committed = False

    def add_schema(self, content: Dict[str, Dict[str, Any]], desc: Optional[str] = None) -> int:
        """Declares the fields: name -> ``{"type": "int32"|"int64"|"float32"|"float64"|
        "string"|"bytes", "shape": [...]}`` (no shape: a scalar; -1: one free dim).

        Args:
            content (dict): the schema.
            desc (str, optional): a description stored with it. Default: ``None`` .

        Returns:
            int, the schema id (0).
        """
        self._check_open("add_schema")
        if self._schema is not None:
            raise RuntimeError("FileWriter.add_schema: the schema is already set")
        self._schema = _check_schema(content)
        self._desc = "" if desc is None else str(desc)
        return 0

    def add_index(self, index_fields: Sequence[str]) -> None:
        """Records fields to index (kept in the footer; reads do not need them).

        Args:
            index_fields (list[str]): scalar number or string fields of the schema.
        """
        self._check_open("add_index")
        schema = self._need_schema("add_index")
        for f in index_fields:
            if f not in schema or "shape" in schema[f] or schema[f]["type"] == "bytes":
                raise ValueError(f"FileWriter.add_index: {f!r} must be a scalar number or "
                                 "string field of the schema")
        self._index_fields = list(index_fields)

    def write_raw_data(self, raw_data: List[Dict[str, Any]], parallel_writer: bool = False) -> None:
        """Appends rows: each a dict with a value for every schema field.

        Args:
            raw_data (list[dict]): the rows.
            parallel_writer (bool): accepted for compatibility. Default: ``False`` .
        """
        self._check_open("write_raw_data")
        schema = self._need_schema("write_raw_data")
        if not isinstance(raw_data, list):
            raise TypeError(f"FileWriter.write_raw_data: raw_data must be a list of dicts, got "
                            f"{type(raw_data).__name__}")
        encoded = []
        for row in raw_data:
            if not isinstance(row, dict):
                raise TypeError(f"FileWriter.write_raw_data: each row must be a dict, got "
                                f"{type(row).__name__}")
            missing = [k for k in schema if k not in row]
            extra = [k for k in row if k not in schema]
            if missing or extra:
                raise ValueError(f"FileWriter.write_raw_data: row fields {sorted(row)} do not "
                                 f"match the schema {sorted(schema)} (missing {missing}, "
                                 f"unknown {extra})")
            encoded.append(b"".join(_encode(k, schema[k], row[k]) for k in schema))
        for blob in encoded:  # all rows checked before any is written
            offset = self._f.tell()
            self._f.write(blob)
            self._rows.append([offset, len(blob), zlib.crc32(blob)])

    def commit(self) -> None:
        """Writes the footer and moves the finished file into place (atomically)."""
        self._check_open("commit")
        schema = self._need_schema("commit")
        footer = json.dumps({"version": _VERSION, "schema": schema, "desc": self._desc,
                             "index_fields": self._index_fields, "rows": self._rows})
        data = footer.encode("utf-8")
        self._f.write(data + struct.pack("<Q", len(data)) + MAGIC)
        self._f.flush()
        os.fsync(self._f.fileno())
        self._f.close()
        os.replace(self._tmp, self.file_name)
        self._committed = True

    def _check_open(self, what: str) -> None:
        if self._committed:
            raise RuntimeError(f"FileWriter.{what}: the file was already committed")

    def _need_schema(self, what: str) -> Dict[str, Dict[str, Any]]:
        if self._schema is None:
            raise RuntimeError(f"FileWriter.{what}: call add_schema first")
        return self._schema

    def __del__(self) -> None:
        f = getattr(self, "_f", None)
        if f is not None and not self._committed:
            try:
                f.close()
                os.remove(self._tmp)
            except OSError:
                pass


class FileReader:
    """Reads a file written by FileWriter, validating it (see the module docstring).

    Args:
        file_name (str): the file.
        num_consumer (int): accepted for compatibility. Default: ``4`` .
        columns (list[str], optional): the fields to read (all when ``None``).
            Default: ``None`` .
        operator (None): accepted for compatibility. Default: ``None`` .
    """

    def __init__(self, file_name: str, num_consumer: int = 4,
                 columns: Optional[Sequence[str]] = None, operator: Any = None) -> None:
        self.file_name = file_name
        try:
            with open(file_name, "rb") as f:
                self._data = f.read()
        except OSError as e:
            raise ValueError(f"MindRecord: cannot read {file_name!r}: {e.strerror}") from None
        d, n = self._data, len(self._data)
        if n < 2 * len(MAGIC) + 8 or d[:len(MAGIC)] != MAGIC or d[-len(MAGIC):] != MAGIC:
            raise ValueError(f"MindRecord: {file_name!r} is not a tandem MindRecord file or is "
                             "truncated (bad magic); MindSpore's own .mindrecord files cannot "
                             "be read")
        (flen,) = struct.unpack("<Q", d[-len(MAGIC) - 8:-len(MAGIC)])
        fstart = n - len(MAGIC) - 8 - flen
        if flen == 0 or fstart < len(MAGIC):
            raise ValueError(f"MindRecord: {file_name!r} has a corrupt footer length")
        try:
            footer = json.loads(d[fstart:fstart + flen].decode("utf-8"))
            self.schema: Dict[str, Dict[str, Any]] = _check_schema(footer["schema"])
            rows = footer["rows"]
            self.desc = str(footer.get("desc", ""))
            if footer.get("version") != _VERSION:
                raise ValueError(f"version {footer.get('version')!r}")
        except (ValueError, KeyError, TypeError, UnicodeDecodeError) as e:
            raise ValueError(f"MindRecord: {file_name!r} has a corrupt footer ({e})") from None
        for r in rows:
            if (not isinstance(r, list) or len(r) != 3 or not all(isinstance(v, int) for v in r)
                    or r[0] < len(MAGIC) or r[1] < 0 or r[0] + r[1] > fstart):
                raise ValueError(f"MindRecord: {file_name!r} has a corrupt row index entry {r!r}")
        self._rows = rows
        names = list(self.schema)
        cols = names if columns is None else list(columns)
        for c in cols:
            if c not in self.schema:
                raise ValueError(f"MindRecord: column {c!r} not in the schema {names}")
        self.columns = cols

    def __len__(self) -> int:
        return len(self._rows)

    def row(self, i: int) -> Dict[str, Any]:
        """Row `i` as a dict field -> numpy array (str for string fields, bytes for bytes).

        Args:
            i (int): the row index.

        Returns:
            dict, the row's values.
        """
        off, length, crc = self._rows[i]
        blob = self._data[off:off + length]
        if zlib.crc32(blob) != crc:
            raise ValueError(f"MindRecord: {self.file_name!r}: row {i} fails its CRC check "
                             "(the file is corrupt)")
        out: Dict[str, Any] = {}
        pos = 0
        try:
            for name, spec in self.schema.items():
                kind, ndim = struct.unpack_from("<BB", blob, pos)
                pos += 2
                shape = struct.unpack_from(f"<{ndim}q", blob, pos)
                pos += 8 * ndim
                (nbytes,) = struct.unpack_from("<Q", blob, pos)
                pos += 8
                raw = blob[pos:pos + nbytes]
                if len(raw) != nbytes:
                    raise ValueError("truncated value")
                pos += nbytes
                t = spec["type"]
                if t == "string":
                    if kind != _KIND["string"]:
                        raise ValueError(f"field {name!r} is not a string")
                    value: Any = raw.decode("utf-8")
                elif t == "bytes":
                    if kind != _KIND["bytes"]:
                        raise ValueError(f"field {name!r} is not bytes")
                    value = raw
                else:
                    dt = np.dtype(SUPPORTED_TYPES[t]).newbyteorder("<")
                    if kind != _KIND["num"] or int(np.prod(shape)) * dt.itemsize != nbytes:
                        raise ValueError(f"field {name!r} has a bad size")
                    value = np.frombuffer(raw, dtype=dt).reshape(shape).astype(
                        dt.newbyteorder("="))
                if name in self.columns:
                    out[name] = value
            if pos != len(blob):
                raise ValueError("trailing bytes")
        except (struct.error, ValueError, UnicodeDecodeError) as e:
            raise ValueError(f"MindRecord: {self.file_name!r}: row {i} is corrupt ({e})") from None
        return out

    def get_next(self) -> Iterator[Dict[str, Any]]:
        """Iterates the rows in file order.

        Returns:
            Iterator[dict], the rows.
        """
        for i in range(len(self._rows)):
            yield self.row(i)

    def close(self) -> None:
        """Releases the file's data."""
        self._data = b""


def _open(paths: Union[str, Sequence[str]]) -> List[FileReader]:
    files = [paths] if isinstance(paths, str) else list(paths)
    if not files:
        raise ValueError("MindDataset: dataset_files must name at least one file")
    return [FileReader(p) for p in files]
