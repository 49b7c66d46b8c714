"""A small writer of the ONNX protobuf messages tandem's exporter needs (onnx.proto, IR
version 8), so exporting needs no onnx package. Messages are built as bytes: each function
returns one encoded message; fields follow onnx.proto's numbering."""
from __future__ import annotations

import struct
from typing import Iterable, Optional, Sequence

# TensorProto.DataType
FLOAT, UINT8, INT8, INT16, INT32, INT64, BOOL, FLOAT16, DOUBLE, BFLOAT16 = 1, 2, 3, 5, 6, 7, 9, 10, 11, 16
# onnx type codes of tandem dtype names
DTYPES = {"float32": FLOAT, "uint8": UINT8, "int8": INT8, "int16": INT16, "int32": INT32,
          "int64": INT64, "bool": BOOL, "float16": FLOAT16, "float64": DOUBLE,
          "bfloat16": BFLOAT16}
# AttributeProto.AttributeType
_A_FLOAT, _A_INT, _A_STRING, _A_TENSOR, _A_FLOATS, _A_INTS, _A_STRINGS = 1, 2, 3, 4, 6, 7, 8


def _varint(n: int) -> bytes:
    n &= (1 << 64) - 1  # negative int64 values as two's complement
    out = bytearray()
    while True:
        b = n & 0x7F
        n >>= 7
        if n:
            out.append(b | 0x80)
        else:
            out.append(b)
            return bytes(out)


def _key(field: int, wire: int) -> bytes:
    return _varint(field << 3 | wire)


def _int(field: int, v: int) -> bytes:
    return _key(field, 0) + _varint(int(v))


def _bytes(field: int, b) -> bytes:
    if isinstance(b, str):
        b = b.encode("utf-8")
    return _key(field, 2) + _varint(len(b)) + bytes(b)


def _float(field: int, v: float) -> bytes:
    return _key(field, 5) + struct.pack("<f", float(v))


def tensor(name: str, data_type: int, dims: Sequence[int], raw: bytes) -> bytes:
    """TensorProto with raw little-endian data."""
    out = b"".join(_int(1, d) for d in dims)
    return out + _int(2, data_type) + _bytes(8, name) + _bytes(9, raw)


def attr(name: str, value) -> bytes:
    """AttributeProto from a Python int, float, str, bytes (a TensorProto), or a list of ints,
    floats or strs."""
    out = _bytes(1, name)
    if isinstance(value, bool) or isinstance(value, int):
        return out + _int(3, int(value)) + _int(20, _A_INT)
    if isinstance(value, float):
        return out + _float(2, value) + _int(20, _A_FLOAT)
    if isinstance(value, str):
        return out + _bytes(4, value) + _int(20, _A_STRING)
    if isinstance(value, bytes):
        return out + _bytes(5, value) + _int(20, _A_TENSOR)
    value = list(value)
    if value and all(isinstance(v, str) for v in value):
        return out + b"".join(_bytes(9, v) for v in value) + _int(20, _A_STRINGS)
    if all(isinstance(v, int) for v in value):
        return out + b"".join(_int(8, v) for v in value) + _int(20, _A_INTS)
    return out + b"".join(_float(7, v) for v in value) + _int(20, _A_FLOATS)


def node(op_type: str, inputs: Iterable[str], outputs: Iterable[str], name: str = "",
         **attrs) -> bytes:
    out = b"".join(_bytes(1, i) for i in inputs) + b"".join(_bytes(2, o) for o in outputs)
    if name:
        out += _bytes(3, name)
    out += _bytes(4, op_type)
    for k, v in attrs.items():
        if v is not None:
            out += _bytes(5, attr(k, v))
    return out


def value_info(name: str, elem_type: int, shape: Sequence) -> bytes:
    """ValueInfoProto of a tensor; shape entries are ints or strings (symbolic dims)."""
    dims = b""
    for d in shape:
        dims += _bytes(1, _bytes(2, d) if isinstance(d, str) else _int(1, d))
    tensor_type = _int(1, elem_type) + _bytes(2, dims)
    return _bytes(1, name) + _bytes(2, _bytes(1, tensor_type))


def graph(name: str, nodes, initializers, inputs, outputs, value_infos=()) -> bytes:
    out = b"".join(_bytes(1, n) for n in nodes) + _bytes(2, name)
    out += b"".join(_bytes(5, t) for t in initializers)
    out += b"".join(_bytes(11, v) for v in inputs) + b"".join(_bytes(12, v) for v in outputs)
    out += b"".join(_bytes(13, v) for v in value_infos)
    return out


def model(graph_bytes: bytes, opset: int, producer: str, producer_version: str,
          ir_version: int = 8, doc: Optional[str] = None) -> bytes:
    out = _int(1, ir_version) + _bytes(2, producer) + _bytes(3, producer_version)
    if doc:
        out += _bytes(6, doc)
    out += _bytes(7, graph_bytes)
    out += _bytes(8, _bytes(1, "") + _int(2, opset))
    return out
