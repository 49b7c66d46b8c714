"""Deployment: export a network to a file and run it without Python.

MindSpore's names::

    tandem.export(net, x, file_name="lenet", file_format="MINDIR")   # writes lenet.tdm
    graph = tandem.load("lenet.tdm")
    y = tandem.nn.GraphCell(graph)(x)

PyTorch's::

    mint.export(model, (x,), "lenet.tdm")          # returns the loaded Graph
    mint.onnx.export(model, (x,), "lenet.onnx")
    jit(fn).export(x, file_name="lenet")

``file_format='MINDIR'`` writes tandem's own model format (``.tdm``), not MindSpore's MindIR
protobuf: MindSpore cannot read the file and tandem does not read ``.mindir`` files. The
name is accepted so MindSpore export code runs unchanged. Like MindSpore, ``export`` appends
the format's suffix when ``file_name`` lacks it -- ``.tdm`` for MINDIR (MindSpore would add
``.mindir``), ``.onnx`` for ONNX -- so the name says what the file holds.

A ``.tdm`` file is a safetensors file (the weights, readable by any safetensors reader)
whose metadata holds the graph after the inference passes: dropout removed, batch norm
folded into the preceding convolution or linear layer, constants folded, common
subexpressions merged. ``tandem.load`` (and the C++ runtime, ``tandem-run``) re-run
elementwise fusion and memory planning when they load it. ``Graph.explain()`` shows what
export folded and what the runtime executes.

``dynamic=True`` makes dim 0 of every input a batch dimension of any size.
"""
from __future__ import annotations

import os
from typing import Callable, Sequence

from . import _C
from ._layers.cell import Cell

Tensor = _C.Tensor

_SUFFIX = {"MINDIR": ".tdm", "TDM": ".tdm", "ONNX": ".onnx"}


def _as_tensor(x, where: str) -> Tensor:
    if isinstance(x, Tensor):
        return x
    if type(x).__module__ == "numpy" and hasattr(x, "__array__"):
        import numpy as np
        return _C.from_numpy(np.ascontiguousarray(x), True)
    raise TypeError(f"{where}: inputs must be tensors (or numpy arrays), got {type(x).__name__}")


def _flat_outputs(out, where: str) -> list:
    if isinstance(out, Tensor):
        return [out]
    if isinstance(out, (tuple, list)) and all(isinstance(o, Tensor) for o in out):
        return list(out)
    raise TypeError(f"{where}: the network must return a tensor or a tuple/list of tensors, got "
                    f"{type(out).__name__}")


def _unwrap(net) -> Callable:
    """The Python function behind a jit-compiled function (export traces it itself)."""
    from .jit import JitFunction
    return net._fn if isinstance(net, JitFunction) else net


def _param_names(net) -> list:
    if not isinstance(net, Cell):
        return []
    names = [(p, n) for n, p in net.named_parameters()]
    names += [(b, n) for n, b in net.named_buffers() if b is not None]
    return names


class _EvalMode:
    """Puts every cell of a network in inference mode for the trace, then restores each."""

    def __init__(self, net):
        self.cells = list(net.modules()) if isinstance(net, Cell) else []

    def __enter__(self):
        self.saved = [c.__dict__["_training"] for c in self.cells]
        for c in self.cells:
            object.__setattr__(c, "training", False)

    def __exit__(self, *exc):
        for c, mode in zip(self.cells, self.saved):
            object.__setattr__(c, "training", mode)


def export_model_file(net, *inputs, dynamic: bool = False, input_names: Sequence[str] = (),
                      output_names: Sequence[str] = ()):
    """Traces ``net(*inputs)`` in inference mode and returns the optimized ``_C.ModelFile``
    (what ``export`` writes). Non-tensor inputs are baked into the graph."""
    fn = _unwrap(net)
    examples, positions = [], []
    for i, x in enumerate(inputs):
        if isinstance(x, Tensor) or type(x).__module__ == "numpy":
            examples.append(_as_tensor(x, "export"))
            positions.append(i)

    def traced(sym):
        args = list(inputs)
        for i, s in zip(positions, sym):
            args[i] = s
        return _flat_outputs(fn(*args), "export")

    from . import __version__
    with _EvalMode(net):
        return _C.export_model(traced, examples, bool(dynamic), _param_names(net),
                               list(input_names), list(output_names), f"tandem {__version__}")


def export(net: Cell | Callable, *inputs: Tensor, file_name: str, file_format: str = "MINDIR",
           dynamic: bool = False, input_names: Sequence[str] = (),
           output_names: Sequence[str] = (), opset_version: int = 17) -> str:
    """Exports a network, traced at ``inputs`` in inference mode, to a model file.

    Args:
        net (Union[Cell, Callable]): a Cell, a jit function or a plain function of tensors.
        inputs (Tensor): example inputs; their shapes and dtypes fix the exported signature.
        file_name (str): the output path; the format's suffix is appended when missing.
        file_format (str): 'MINDIR' (tandem's .tdm format; see the module docs) or 'ONNX'.
            Default: 'MINDIR'.
        dynamic (bool): dim 0 of every input is a batch dimension of any size. Default: False.
        input_names (Sequence[str]): names of the graph inputs. Default: ``input0, ...``.
        output_names (Sequence[str]): names of the graph outputs. Default: ``output0, ...``.
        opset_version (int): the ONNX opset (>= 17) for ``file_format='ONNX'``. Default: 17.

    Returns:
        str, the path written.

    Raises:
        ValueError: `file_format` is not 'MINDIR' or 'ONNX'.
    """
    fmt = str(file_format).upper()
    if fmt not in _SUFFIX:
        raise ValueError(f"export: file_format must be 'MINDIR' or 'ONNX', got {file_format!r}"
                         + (" (AIR is not supported)" if fmt == "AIR" else ""))
    path = os.fspath(file_name)
    if not path.endswith(_SUFFIX[fmt]):
        path += _SUFFIX[fmt]
    model = export_model_file(net, *inputs, dynamic=dynamic, input_names=input_names,
                              output_names=output_names)
    if fmt == "ONNX":
        from .onnx import write_onnx
        write_onnx(model, path, opset_version=opset_version)
    else:
        model.save(path)
    return path


class Graph:
    """A model file loaded by the C++ runtime (``tandem.load``): call it, or wrap it in
    ``nn.GraphCell``. No autograd: outputs never require grad."""

    def __init__(self, path: str, num_threads: int = 0):
        self.file_name = os.fspath(path)
        self._model = _C.RuntimeModel(self.file_name, int(num_threads))

    @property
    def inputs(self) -> list:
        """[(name, dtype name, shape)] with "N" for a dynamic batch dimension."""
        return self._model.file.inputs

    @property
    def outputs(self) -> list:
        return self._model.file.outputs

    @property
    def num_threads(self) -> int:
        return self._model.num_threads

    @num_threads.setter
    def num_threads(self, n: int) -> None:
        self._model.num_threads = int(n)

    @property
    def dynamic(self) -> bool:
        return self._model.file.dynamic

    def __call__(self, *inputs):
        outs = self._model.run([_as_tensor(x, "Graph") for x in inputs])
        return outs[0] if len(outs) == 1 else tuple(outs)

    def explain(self, batch: int = 0) -> str:
        """The file's versions, what export folded, the stored graph and the graph the runtime
        executes (at ``batch``, default the export batch) with its memory plan."""
        return self._model.explain(int(batch))

    def __repr__(self) -> str:
        ins = ", ".join(f"{n}: {d}{list(s)}" for n, d, s in self.inputs)
        return f"Graph('{self.file_name}', inputs=({ins}))"


def load(file_name: str, num_threads: int = 0) -> Graph:
    """Loads a model file written by ``export`` (validating it) for the C++ runtime.

    Args:
        file_name (str): a ``.tdm`` file.
        num_threads (int): threads the runtime may use; 0 means all cores. Default: 0.

    Returns:
        Graph, callable on tensors; wrap it in ``nn.GraphCell`` to use it as a Cell.

    Raises:
        ValueError: the file is missing, truncated, corrupt or of an unknown version.
    """
    # MindSpore code names the file MindSpore's export would write (``model.mindir``);
    # tandem's export wrote ``model.tdm`` beside it, which is what that code means to load.
    if isinstance(file_name, str) and file_name.endswith(".mindir") \
            and not os.path.exists(file_name):
        tdm = file_name[:-len(".mindir")] + ".tdm"
        if os.path.exists(tdm):
            file_name = tdm
    return Graph(file_name, num_threads)


def mint_export(model: Cell | Callable, args: Tensor | tuple, f: str | os.PathLike | None = None,
                *, dynamic: bool = False, input_names: Sequence[str] = (),
                output_names: Sequence[str] = ()) -> Graph:
    """PyTorch-face export (``mint.export``): traces ``model(*args)`` in eval mode and writes
    tandem's model format.

    Args:
        model (Union[Cell, Callable]): the network or function to export.
        args (Union[Tensor, tuple]): example inputs.
        f (Union[str, PathLike], optional): the output path, used as given. Default: ``model.tdm``.
        dynamic (bool): dim 0 of every input is a batch dimension of any size. Default: False.
        input_names (Sequence[str]): names of the graph inputs.
        output_names (Sequence[str]): names of the graph outputs.

    Returns:
        Graph, the written file loaded back by the runtime.
    """
    args = args if isinstance(args, tuple) else (args,)
    path = os.fspath(f) if f is not None else "model.tdm"
    export_model_file(model, *args, dynamic=dynamic, input_names=input_names,
                      output_names=output_names).save(path)
    return load(path)


def jit_export(jit_fn, *inputs, file_name: str, file_format: str = "MINDIR", **kwargs) -> str:
    """``jit(fn).export(*inputs, file_name=...)``: ``export`` of the function jit wraps."""
    return export(jit_fn._fn, *inputs, file_name=file_name, file_format=file_format, **kwargs)
