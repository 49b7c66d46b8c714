"""Checkpoints in the safetensors layout, under MindSpore's names (save_checkpoint,
load_checkpoint, load_param_into_net) and PyTorch's (``mint.save`` / ``mint.load``).

Files are plain safetensors: tensors by name plus a string->string metadata map, so they load
with the ``safetensors`` package and files it writes load here. Writing is crash-safe (a
temporary file in the same directory, fsync, rename), and reading validates the whole header
before touching any data, so a corrupt or hostile file raises ValueError.
"""
from __future__ import annotations

import json
import os
import tempfile
from collections import OrderedDict
from typing import (IO, TYPE_CHECKING, Any, Callable, Dict, List, Mapping, Optional,
                    Sequence, Tuple, Type, Union)

from . import _C

if TYPE_CHECKING:
    from ._layers.cell import Cell
    from ._layers.parameter import Parameter

Tensor = _C.Tensor
#: A file name.
PathT = Union[str, bytes, "os.PathLike[str]", "os.PathLike[bytes]"]

# Metadata keys of the files written here; others are left alone.
_FORMAT_KEY = "tandem.format"
_STRUCTURE_KEY = "tandem.structure"
_STR_PREFIX = "tandem.str."
_MINT_FORMAT = "mint.save/1"


def _as_path(f: Any) -> str:
    if isinstance(f, (str, bytes, os.PathLike)):
        return os.fsdecode(os.fspath(f))
    raise TypeError(f"expected a file name (str or os.PathLike), got {type(f).__name__}")


def _to_tensor(value: Any, what: str) -> Tensor:
    if isinstance(value, Tensor):
        return value
    try:
        return _C.Tensor(value, None)
    except (TypeError, ValueError) as e:
        raise TypeError(f"{what}: cannot store a {type(value).__name__} as a tensor "
                        f"({e})") from None


def _parameter_cls() -> Type["Parameter"]:
    from ._layers.parameter import Parameter
    return Parameter


def _loaded_parameter_cls() -> Type["Parameter"]:
    """What loading creates: tandem.Parameter (MindSpore's repr and rules), a subclass of the
    shared Parameter, so isinstance checks against either face's class hold."""
    from .nn.parameter import Parameter
    return Parameter


# --- MindSpore face -----------------------------------------------------------------------------

def _named_state(net: Any) -> List[Tuple[str, Tensor]]:
    """(name, tensor) for every parameter of a Cell / Module, then its persistent buffers
    (BatchNorm's running statistics) so a checkpoint restores the whole model."""
    if hasattr(net, "parameters_and_names"):
        items = list(net.parameters_and_names())
    elif hasattr(net, "named_parameters"):
        items = list(net.named_parameters())
    else:
        raise TypeError(f"expected a Cell / Module (with parameters_and_names() or "
                        f"named_parameters()), got {type(net).__name__}")
    if hasattr(net, "named_buffers"):
        names = {n for n, _ in items}
        persistent = None
        if hasattr(net, "state_dict"):
            try:
                persistent = set(net.state_dict(keep_vars=True))
            except TypeError:
                persistent = None
        for n, b in net.named_buffers():
            if b is not None and n not in names and (persistent is None or n in persistent):
                items.append((n, b))
    return items


def _checkpoint_items(save_obj: Any, what: str) -> List[Tuple[str, Any]]:
    if isinstance(save_obj, dict):
        return list(save_obj.items())
    if isinstance(save_obj, (list, tuple)):
        items = []
        for i, entry in enumerate(save_obj):
            if not isinstance(entry, dict) or "name" not in entry or "data" not in entry:
                raise TypeError(f"{what}: list entries must be dicts with 'name' and 'data', "
                                f"entry {i} is {entry!r:.80}")
            items.append((entry["name"], entry["data"]))
        return items
    return _named_state(save_obj)


def save_checkpoint(save_obj: Union["Cell", Sequence[Dict[str, Any]], Mapping[str, Any]],
                    ckpt_file_name: PathT, integrated_save: bool = True,
                    async_save: bool = False, append_dict: Optional[Dict[str, Any]] = None,
                    choice_func: Optional[Callable[[str], bool]] = None) -> None:
    """Saves a network's parameters (MindSpore's save_checkpoint), crash-safely, as a
    safetensors file.

    Args:
        save_obj (Union[Cell, list, dict]): a Cell / Module (its parameters and persistent
            buffers), a list of ``{"name": str, "data": tensor}`` dicts, or a dict
            name -> tensor.
        ckpt_file_name (str): the path; ".ckpt" is appended unless it ends in ".ckpt" or
            ".safetensors".
        integrated_save (bool): accepted for compatibility; in one process every parameter
            is whole. Default: ``True`` .
        async_save (bool): background saving is not supported (``True`` raises
            NotImplementedError). Default: ``False`` .
        append_dict (dict, optional): extra entries, name -> int / float / bool / str /
            tensor (e.g. epoch, lr); numbers become 0-d tensors as in MindSpore, strings are
            kept as strings. Default: ``None`` .
        choice_func (Callable[[str], bool], optional): only names for which it returns
            ``True`` are saved. Default: ``None`` .
    """
    what = "save_checkpoint"
    if async_save:
        raise NotImplementedError(f"{what}: async_save=True is not supported; save synchronously")
    path = _as_path(ckpt_file_name)
    if not (path.endswith(".ckpt") or path.endswith(".safetensors")):
        path += ".ckpt"
    tensors: List[Tuple[str, Tensor]] = []
    metadata: Dict[str, str] = {}
    if append_dict is not None and not isinstance(append_dict, dict):
        raise TypeError(f"{what}: append_dict must be a dict, got {type(append_dict).__name__}")
    seen = set()
    extra: List[Tuple[str, Any]] = list(append_dict.items()) if append_dict else []
    for name, value in _checkpoint_items(save_obj, what) + extra:
        if not isinstance(name, str):
            raise TypeError(f"{what}: names must be str, got {name!r}")
        if choice_func is not None and not choice_func(name):
            continue
        if name in seen:
            raise ValueError(f"{what}: duplicate name {name!r} (append_dict names must differ "
                             "from parameter names)")
        seen.add(name)
        if isinstance(value, str):
            metadata[_STR_PREFIX + name] = value
        else:
            tensors.append((name, _to_tensor(value, f"{what}: entry {name!r}")))
    _C.save_safetensors(path, tensors, metadata)


def load_checkpoint(ckpt_file_name: PathT, net: Optional["Cell"] = None,
                    strict_load: bool = False,
                    filter_prefix: Union[str, Sequence[str], None] = None,
                    choice_func: Optional[Callable[[str], bool]] = None
                    ) -> Dict[str, Any]:
    """Loads a checkpoint (MindSpore's load_checkpoint); the whole header is validated
    before any data is read.

    Args:
        ckpt_file_name (str): the path of a file written by save_checkpoint (or any
            safetensors file).
        net (Cell, optional): also load the values into this network (see
            :func:`load_param_into_net`). Default: ``None`` .
        strict_load (bool): with `net`, a dtype mismatch raises instead of converting.
            Default: ``False`` .
        filter_prefix (Union[str, list[str]], optional): names starting with one of these
            are skipped. Default: ``None`` .
        choice_func (Callable[[str], bool], optional): only names for which it returns
            ``True`` are loaded. Default: ``None`` .

    Returns:
        dict, name -> Parameter (float tensors require grad), and name -> str for strings
        saved through append_dict.
    """
    Parameter = _loaded_parameter_cls()
    tensors, metadata = _C.load_safetensors(_as_path(ckpt_file_name))
    if isinstance(filter_prefix, str):
        filter_prefix = (filter_prefix,)
    prefixes: Tuple[str, ...] = tuple(filter_prefix or ())

    def keep(name: str) -> bool:
        if prefixes and name.startswith(prefixes):
            return False
        return choice_func is None or bool(choice_func(name))

    out: Dict[str, Any] = {}
    for name, t in tensors:
        if keep(name):
            out[name] = Parameter(t, name=name, requires_grad=t.dtype.is_floating_point)
    for key, value in metadata.items():
        if key.startswith(_STR_PREFIX) and keep(key[len(_STR_PREFIX):]):
            out[key[len(_STR_PREFIX):]] = value
    if net is not None:
        load_param_into_net(net, out, strict_load=strict_load)
    return out


def load_param_into_net(net: "Cell", parameter_dict: Dict[str, Any], strict_load: bool = False
                        ) -> Tuple[List[str], List[str]]:
    """Copies checkpoint values into the network's parameters and persistent buffers, in
    place (MindSpore's load_param_into_net). A shape mismatch raises ValueError.

    Args:
        net (Cell): the network to load into.
        parameter_dict (dict): name -> value, as :func:`load_checkpoint` returns.
        strict_load (bool): a dtype mismatch raises ValueError instead of converting to the
            parameter's dtype. Default: ``False`` .

    Returns:
        tuple[list[str], list[str]], (param_not_load, ckpt_not_load): the network's names
        missing from the dict, and the dict's names the network does not have.
    """
    from .autograd import no_grad
    if not isinstance(parameter_dict, dict):
        raise TypeError(f"load_param_into_net: parameter_dict must be a dict, got "
                        f"{type(parameter_dict).__name__}")
    targets = _named_state(net)
    target_names = {n for n, _ in targets}
    param_not_load: List[str] = []
    with no_grad():
        for name, target in targets:
            if name not in parameter_dict:
                param_not_load.append(name)
                continue
            value = parameter_dict[name]
            if isinstance(value, str):
                raise TypeError(f"load_param_into_net: {name!r} holds a string, not a tensor")
            value = _to_tensor(value, f"load_param_into_net: {name!r}")
            if tuple(value.shape) != tuple(target.shape):
                raise ValueError(f"load_param_into_net: shape of {name!r} is "
                                 f"{tuple(value.shape)} in the checkpoint but "
                                 f"{tuple(target.shape)} in the network")
            if strict_load and value.dtype != target.dtype:
                raise ValueError(f"load_param_into_net: dtype of {name!r} is {value.dtype} in the "
                                 f"checkpoint but {target.dtype} in the network (strict_load)")
            target.copy_(value)
    ckpt_not_load = [k for k in parameter_dict if k not in target_names]
    return param_not_load, ckpt_not_load


# --- PyTorch face -------------------------------------------------------------------------------

class _Flattener:
    """Turns nested containers into a JSON structure whose leaves name the tensors, which are
    stored under dotted keys ("state.0.exp_avg"); a tensor seen twice is stored once."""

    def __init__(self) -> None:
        self.tensors: List[Tuple[str, Tensor]] = []
        self._names: set[str] = set()
        self._by_id: Dict[int, str] = {}

    def _key(self, path: str) -> str:
        key = path or "tensor"
        n = 1
        while key in self._names:
            key = f"{path or 'tensor'}#{n}"
            n += 1
        self._names.add(key)
        return key

    def encode(self, obj: Any, path: str) -> Dict[str, Any]:
        import numpy as np
        Parameter = _parameter_cls()
        if isinstance(obj, Tensor):
            if id(obj) in self._by_id:
                key = self._by_id[id(obj)]
            else:
                key = self._key(path)
                self._by_id[id(obj)] = key
                self.tensors.append((key, obj))
            node: Dict[str, Any] = {"t": key}
            if isinstance(obj, Parameter):
                node["param"] = bool(obj.requires_grad)
            return node
        if isinstance(obj, np.ndarray):
            key = self._key(path)
            self.tensors.append((key, _C.from_numpy(np.array(obj, order="C"), True)))
            return {"t": key, "numpy": True}
        if obj is None or isinstance(obj, (bool, int, float, str)):
            return {"v": obj}
        if isinstance(obj, np.generic):
            return {"v": obj.item()}
        if isinstance(obj, dict):
            items = []
            for k, v in obj.items():
                if not (k is None or isinstance(k, (bool, int, float, str))):
                    raise TypeError(f"mint.save: dict key {k!r} at {path or '<root>'!r} is not a "
                                    "str, int, float, bool or None")
                items.append([k, self.encode(v, f"{path}.{k}" if path else str(k))])
            dnode: Dict[str, Any] = {"d": items}
            if isinstance(obj, OrderedDict):
                dnode["ordered"] = True
            return dnode
        if isinstance(obj, (list, tuple)):
            enc = [self.encode(v, f"{path}.{i}" if path else str(i)) for i, v in enumerate(obj)]
            return {"l": enc} if isinstance(obj, list) else {"u": enc}
        raise TypeError(f"mint.save: cannot save a {type(obj).__name__} at "
                        f"{path or '<root>'!r}; only tensors, numpy arrays, numbers, str, None "
                        "and dicts / lists / tuples of them")


def _decode(node: Any, tensors: Dict[str, Tensor], cache: Dict[str, Any]) -> Any:
    if not isinstance(node, dict):
        raise ValueError(f"mint.load: corrupt structure metadata (node {node!r:.80})")
    if "t" in node:
        key = node["t"]
        if key not in tensors:
            raise ValueError(f"mint.load: structure names tensor {key!r}, which the file lacks")
        if key not in cache:
            t: Any = tensors[key]
            if node.get("numpy"):
                t = t.numpy()
            elif "param" in node:
                t = _loaded_parameter_cls()(t, requires_grad=bool(node["param"]))
            cache[key] = t
        return cache[key]
    if "v" in node:
        return node["v"]
    if "d" in node:
        pairs = ((k, _decode(v, tensors, cache)) for k, v in node["d"])
        return OrderedDict(pairs) if node.get("ordered") else dict(pairs)
    if "l" in node:
        return [_decode(v, tensors, cache) for v in node["l"]]
    if "u" in node:
        return tuple(_decode(v, tensors, cache) for v in node["u"])
    raise ValueError(f"mint.load: corrupt structure metadata (node {node!r:.80})")


def save(obj: Any, f: Union[PathT, IO[bytes]]) -> None:
    """Saves a tensor or nested dicts / lists / tuples of tensors and plain Python values
    (a state_dict, an optimizer's state) like torch.save, as a safetensors file. Tensors
    are stored under flattened dotted keys ("layer.weight", "state.0.exp_avg"), the rest as
    JSON in the metadata.

    Args:
        obj (Any): tensors, numpy arrays, numbers, str, None and dicts / lists / tuples of
            them (dict keys str, int, float, bool or None).
        f (str or os.PathLike or file object): a path (written crash-safely) or a writable
            binary file object.
    """
    flat = _Flattener()
    structure = flat.encode(obj, "")
    metadata = {_FORMAT_KEY: _MINT_FORMAT,
                _STRUCTURE_KEY: json.dumps(structure, separators=(",", ":"))}
    if hasattr(f, "write") and not isinstance(f, (str, bytes, os.PathLike)):
        with tempfile.TemporaryDirectory() as d:
            p = os.path.join(d, "obj.safetensors")
            _C.save_safetensors(p, flat.tensors, metadata)
            with open(p, "rb") as src:
                _copy_stream(src, f)
        return
    _C.save_safetensors(_as_path(f), flat.tensors, metadata)


def _copy_stream(src: IO[bytes], dst: IO[bytes]) -> None:
    while True:
        chunk = src.read(1 << 24)
        if not chunk:
            return
        dst.write(chunk)


def load(f: Union[PathT, IO[bytes]], map_location: Optional[str] = None,
         weights_only: bool = True) -> Any:
    """Loads what :func:`save` wrote (torch.load); a safetensors file from another writer
    loads as a dict name -> tensor, and a file PyTorch's torch.save wrote (its zip + pickle
    format) loads without torch, tensors and containers only (any other object is refused). The file holds only tensors and JSON values, so loading
    never runs code whatever `weights_only` says.

    Args:
        f (str or os.PathLike or file object): a path or a readable binary file object.
        map_location (str, optional): ``None`` or ``'cpu'`` (the only device).
            Default: ``None``.
        weights_only (bool): accepted for PyTorch code (loading is always weights-only).
            Default: ``True``.

    Returns:
        Any: the saved object (Parameters come back as Parameters, numpy arrays as numpy
        arrays).
    """
    if map_location not in (None, "cpu"):
        raise ValueError(f"mint.load: map_location={map_location!r} is not available; tandem "
                         "runs on the CPU (use None or 'cpu')")
    if hasattr(f, "read") and not isinstance(f, (str, bytes, os.PathLike)):
        with tempfile.TemporaryDirectory() as d:
            p = os.path.join(d, "obj.safetensors")
            with open(p, "wb") as dst:
                _copy_stream(f, dst)
            return load(p)
    from ._torch_pickle import is_torch_zip, load_torch_zip
    if is_torch_zip(_as_path(f)):  # a file torch.save wrote: read without torch, tensors only
        return load_torch_zip(_as_path(f))
    tensors, metadata = _C.load_safetensors(_as_path(f))
    if _STRUCTURE_KEY not in metadata:
        return {name: t for name, t in tensors}
    # Metadata nested deeper than Python's recursion limit (a hostile or corrupt file) is
    # corrupt metadata too, not a RecursionError.
    try:
        structure = json.loads(metadata[_STRUCTURE_KEY])
    except json.JSONDecodeError as e:
        raise ValueError(f"mint.load: corrupt structure metadata ({e})") from None
    except RecursionError:
        raise ValueError("mint.load: corrupt structure metadata (nested too deeply)") from None
    try:
        return _decode(structure, dict(tensors), {})
    except (TypeError, KeyError, AttributeError, ValueError) as e:
        if isinstance(e, ValueError) and str(e).startswith("mint.load"):
            raise
        raise ValueError(f"mint.load: corrupt structure metadata ({e})") from None
    except RecursionError:
        raise ValueError("mint.load: corrupt structure metadata (nested too deeply)") from None


__all__ = ["save_checkpoint", "load_checkpoint", "load_param_into_net", "save", "load"]
