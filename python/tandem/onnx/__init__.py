"""ONNX export (``mint.onnx.export``, ``tandem.export(..., file_format='ONNX')``).

The exporter maps the same optimized inference graph that a ``.tdm`` file stores (dropout
removed, batch norm folded, constants folded) to standard ONNX, opset 17, with a small
protobuf writer of its own: exporting needs neither the ``onnx`` package nor onnxruntime
(tests check every file with ``onnx.checker`` and run it in onnxruntime).

    mint.onnx.export(model, (x,), "lenet.onnx", input_names=["x"],
                     dynamic_axes={"x": {0: "batch"}})
    tandem.onnx.convert("lenet.tdm", "lenet.onnx")     # an existing model file
"""
from __future__ import annotations

import os
from typing import Optional, Sequence

from ._convert import Converter
from . import _proto
from .._files import write_bytes_atomic

SUPPORTED_OPSETS = (17,)


def model_bytes(model_file, opset_version: int = 17) -> bytes:
    """The ONNX ModelProto bytes of a ``_C.ModelFile``."""
    if opset_version not in SUPPORTED_OPSETS:
        raise ValueError(f"onnx export: opset_version {opset_version} is not supported "
                         f"(supported: {', '.join(map(str, SUPPORTED_OPSETS))})")
    conv = Converter(model_file.graph_json, model_file.constants, opset_version)
    graph = conv.convert()
    from .. import __version__
    return _proto.model(graph, opset_version, "tandem", __version__,
                        doc="exported from a tandem inference graph")


def write_onnx(model_file, path: str, opset_version: int = 17) -> None:
    """Writes ``model_file`` as ONNX to ``path`` (through a temporary file and a rename, so a
    failure leaves no half-written file)."""
    write_bytes_atomic(path, model_bytes(model_file, opset_version))


def convert(tdm_path: str, onnx_path: str, opset_version: int = 17) -> None:
    """Converts a tandem model file to ONNX."""
    from .. import _C
    write_onnx(_C.load_model_file(os.fspath(tdm_path)), os.fspath(onnx_path), opset_version)


def export(model, args, f, *, input_names: Optional[Sequence[str]] = None,
           output_names: Optional[Sequence[str]] = None, dynamic_axes: Optional[dict] = None,
           opset_version: Optional[int] = None, dynamic: bool = False, **unsupported) -> None:
    """``torch.onnx.export``'s signature: traces ``model(*args)`` in eval mode and writes ONNX
    to ``f`` (a path; the name is used as given). ``dynamic_axes`` may mark dim 0 of the
    inputs as the batch (tandem's dynamic batch); other axes are not supported."""
    from ..export import export_model_file
    for k, v in unsupported.items():
        if v not in (None, False) and k not in ("verbose", "do_constant_folding", "export_params",
                                                "training", "dynamo"):
            raise NotImplementedError(f"onnx.export: argument {k}={v!r} is not supported")
    args = args if isinstance(args, tuple) else (args,)
    if dynamic_axes:
        for name, axes in dynamic_axes.items():
            dims = list(axes.keys()) if isinstance(axes, dict) else list(axes)
            if dims != [0]:
                raise NotImplementedError(f"onnx.export: dynamic_axes[{name!r}] = {axes!r}; only "
                                          "dim 0 (the batch) can be dynamic")
        dynamic = True
    mf = export_model_file(model, *args, dynamic=dynamic, input_names=input_names or (),
                           output_names=output_names or ())
    write_onnx(mf, os.fspath(f), opset_version or 17)
