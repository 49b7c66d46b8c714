"""PyTorch names that are not ops: typed tensor constructors (``FloatTensor``), random
generators and seeding, DLPack import, print options."""
from __future__ import annotations

import os
from typing import Any, Optional, Tuple

from .. import _C

Tensor = _C.Tensor


class _TypedTensorMeta(type):
    # isinstance(x, mint.FloatTensor) is a dtype test, as in PyTorch
    def __instancecheck__(cls, obj: Any) -> bool:
        return isinstance(obj, Tensor) and obj.dtype == cls._dtype


def _typed(name: str, dt: "_C.dtype") -> type:
    def __new__(cls: type, *args: Any) -> Tensor:
        if len(args) == 0:
            return _C.empty((0,), dt)
        if all(isinstance(a, int) and not isinstance(a, bool) for a in args):
            return _C.full(tuple(args), 0, dt)  # PyTorch leaves it uninitialized
        if len(args) == 1:
            data = args[0]
            if isinstance(data, Tensor):
                return data if data.dtype == dt else _C.to_dtype(data, dt)
            return _C.Tensor(data, dt)
        raise TypeError(f"{name}(): expected sizes (ints) or one sequence of data, got "
                        f"{tuple(type(a).__name__ for a in args)}")
    doc = (f"``mint.{name}(data)``: a {dt.name} tensor copied from data; "
           f"``mint.{name}(2, 3)``: a {dt.name} tensor of that shape (zero-filled).\n\n"
           f"    Args:\n        *args: data (a sequence, array or tensor) or sizes (ints).\n")
    return _TypedTensorMeta(name, (), {"__new__": __new__, "__doc__": doc, "_dtype": dt,
                                       "__module__": "tandem.mint"})


FloatTensor = _typed("FloatTensor", _C.dtype.float32)
DoubleTensor = _typed("DoubleTensor", _C.dtype.float64)
HalfTensor = _typed("HalfTensor", _C.dtype.float16)
BFloat16Tensor = _typed("BFloat16Tensor", _C.dtype.bfloat16)
LongTensor = _typed("LongTensor", _C.dtype.int64)
IntTensor = _typed("IntTensor", _C.dtype.int32)
ShortTensor = _typed("ShortTensor", _C.dtype.int16)
CharTensor = _typed("CharTensor", _C.dtype.int8)
ByteTensor = _typed("ByteTensor", _C.dtype.uint8)
BoolTensor = _typed("BoolTensor", _C.dtype.bool)


class Generator:
    """A random generator with its own state (seed, offset). tandem's random ops draw from
    one global generator; ``with g:`` (or passing the generator to a helper that takes one)
    swaps this generator's state in for the duration, so draws made through it follow its
    own seed and do not disturb the global sequence.

    Args:
        device (str or mint.device): only 'cpu'. Default: ``'cpu'``.
    """

    def __init__(self, device: Any = "cpu") -> None:
        from .._device import as_device
        self.device = as_device(device, "Generator")
        self._seed = 67280421310721  # PyTorch's default seed of a new generator
        self._offset = 0
        self._saved: list = []

    def manual_seed(self, seed: int) -> "Generator":
        """Seeds this generator.

        Args:
            seed (int): the seed.

        Returns:
            Generator: self.
        """
        self._seed, self._offset = int(seed) & 0xFFFFFFFFFFFFFFFF, 0
        return self

    def seed(self) -> int:
        """Seeds this generator from the OS's entropy.

        Returns:
            int: the seed used.
        """
        s = int.from_bytes(os.urandom(8), "little") >> 1
        self.manual_seed(s)
        return s

    def initial_seed(self) -> int:
        """The seed this generator was last seeded with.

        Returns:
            int: the seed.
        """
        return self._seed

    def get_state(self) -> Tuple[int, int]:
        """The generator's state, for set_state.

        Returns:
            tuple[int, int]: (seed, offset).
        """
        return (self._seed, self._offset)

    def set_state(self, new_state: Tuple[int, int]) -> "Generator":
        """Restores a state from get_state.

        Args:
            new_state (tuple[int, int]): (seed, offset).

        Returns:
            Generator: self.
        """
        self._seed, self._offset = int(new_state[0]), int(new_state[1])
        return self

    def __enter__(self) -> "Generator":
        self._saved.append(_C.get_rng_state())
        _C.set_rng_state(self._seed, self._offset)
        return self

    def __exit__(self, *exc: Any) -> None:
        self._seed, self._offset = _C.get_rng_state()
        _C.set_rng_state(*self._saved.pop())


def seed() -> int:
    """Seeds the global generator from the OS's entropy (non-deterministic).

    Returns:
        int: the seed used.
    """
    s = int.from_bytes(os.urandom(8), "little") >> 1
    _C.manual_seed(s)
    return s


def from_dlpack(ext_tensor: Any) -> Tensor:
    """A tensor sharing memory with a DLPack-exporting CPU array (a torch tensor, a numpy
    array, ...): zero-copy, writes show through both ways.

    Args:
        ext_tensor: an object with ``__dlpack__`` and ``__dlpack_device__``.

    Returns:
        Tensor: the shared tensor.
    """
    import numpy as np
    if isinstance(ext_tensor, Tensor):
        return ext_tensor
    if not hasattr(ext_tensor, "__dlpack__"):
        raise TypeError(f"from_dlpack: expected an object with __dlpack__ (a torch tensor, a "
                        f"numpy array, ...), got {type(ext_tensor).__name__}; raw capsules "
                        f"are not accepted")
    dev = ext_tensor.__dlpack_device__()
    if int(dev[0]) != 1:
        raise RuntimeError(f"from_dlpack: the tensor lives on DLPack device {tuple(dev)}; "
                           f"tandem reads CPU memory only (move it to the CPU first)")
    arr = np.from_dlpack(ext_tensor)
    if not arr.flags.writeable:
        arr = np.from_dlpack(ext_tensor, copy=False)
    return _C.from_numpy(arr)


_PROFILES = {"default": dict(precision=4, threshold=1000, edgeitems=3, linewidth=75),
             "short": dict(precision=2, threshold=1000, edgeitems=2, linewidth=75),
             "full": dict(precision=4, threshold=2 ** 63 - 1, edgeitems=3, linewidth=75)}


def set_printoptions(precision: Optional[int] = None, threshold: Optional[int] = None,
                     edgeitems: Optional[int] = None, linewidth: Optional[int] = None,
                     profile: Optional[str] = None, sci_mode: Optional[bool] = None) -> None:
    """How tensors print (the values inside MindSpore's ``Tensor(shape=..., value=...)``).

    Args:
        precision (int, optional): digits after the decimal point. Default: ``None``.
        threshold (int, optional): element count above which the middle is summarized.
            Default: ``None``.
        edgeitems (int, optional): items kept at each end of a summarized dim.
            Default: ``None``.
        linewidth (int, optional): characters per line. Default: ``None``.
        profile (str, optional): 'default', 'short' or 'full', applied first.
            Default: ``None``.
        sci_mode (bool, optional): force (True) or forbid (False) scientific notation;
            None decides automatically. Default: ``None``.

    Returns:
        None
    """
    from .. import _tensor
    opts = _tensor.PRINT_OPTIONS
    if profile is not None:
        if profile not in _PROFILES:
            raise ValueError(f"set_printoptions: profile must be one of {sorted(_PROFILES)}, "
                             f"got {profile!r}")
        opts.update(_PROFILES[profile])
    for k, v in (("precision", precision), ("threshold", threshold), ("edgeitems", edgeitems),
                 ("linewidth", linewidth)):
        if v is not None:
            if not isinstance(v, int) or v < 0:
                raise ValueError(f"set_printoptions: {k} must be a non-negative int, got {v!r}")
            opts[k] = v
    opts["sci_mode"] = sci_mode


def get_printoptions() -> dict:
    """The current print options.

    Returns:
        dict: precision, threshold, edgeitems, linewidth, sci_mode.
    """
    from .. import _tensor
    return dict(_tensor.PRINT_OPTIONS)
