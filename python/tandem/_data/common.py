"""Pieces shared by tandem.dataset (MindSpore names) and tandem.utils.data / tandem.vision
(PyTorch names): the transform base class and Compose, seeds drawn from the global
generator, turning a list of operations into the C++ transform chain the Loader runs, and
the MNIST-format reader."""
from __future__ import annotations

import atexit
import functools
import weakref
from typing import Any, Callable, List, Sequence, Tuple, TypeVar, Union

import numpy as np

from .. import _C

_live_loaders: "weakref.WeakSet[_C.Loader]" = weakref.WeakSet()
#: A sample a transform is given and returns: a Tensor, or a numpy array.
_Img = TypeVar("_Img", _C.Tensor, np.ndarray)


def new_loader(*args: Any, **kwargs: Any) -> _C.Loader:
    """A _C.Loader, stopped at interpreter exit (its threads must not outlive Python)."""
    loader = _C.Loader(*args, **kwargs)
    _live_loaders.add(loader)
    return loader


@atexit.register
def _stop_loaders() -> None:
    for loader in list(_live_loaders):
        loader.stop()


def draw_seed() -> int:
    """A 62-bit seed drawn from tandem's global generator (so tandem.manual_seed fixes it)."""
    return int(_C.randint(0, 1 << 62, (1,), _C.dtype.int64).item())


def as_tensor(x: Any) -> _C.Tensor:
    """`x` itself when it is a Tensor, else a Tensor converted from it (no copy if
    possible)."""
    if isinstance(x, _C.Tensor):
        return x
    from .._convert import to_tensor
    return to_tensor(x)


def to_dtype(d: Any) -> _C.dtype:
    """A tandem dtype from a tandem dtype, numpy dtype/type or name ('float32')."""
    if isinstance(d, _C.dtype):
        return d
    if isinstance(d, str) and hasattr(_C.dtype, d):
        named: _C.dtype = getattr(_C.dtype, d)
        return named
    from .._convert import _NP_TO_DTYPE
    try:
        return _NP_TO_DTYPE[np.dtype(d)]
    except (TypeError, KeyError):
        raise TypeError(f"TypeCast: unsupported data type {d!r}; use a tandem dtype such as "
                        "tandem.float32") from None


class TransformOp:
    """Base of the built-in transforms: each wraps one or more C++ transforms, which the
    Loader's workers run without the GIL. Calling one directly (eager mode) applies it to a
    numpy array or tensor and returns the same kind; random ones then draw a seed from
    tandem's global generator."""

    _random = False

    def _c_transforms(self) -> List[_C.Transform]:
        raise NotImplementedError

    def __call__(self, img: _Img) -> _Img:
        """Applies the transform to one image (eager mode).

        Args:
            img (Tensor or numpy.ndarray): the image.

        Returns:
            Tensor or numpy.ndarray: the transformed image, of the same kind as `img`.
        """
        was_numpy = not isinstance(img, _C.Tensor)
        x = as_tensor(np.asarray(img) if was_numpy else img)
        seed = draw_seed() if self._random else 0
        for t in self._c_transforms():
            x = t(x, seed, 0)
        return x.numpy() if was_numpy else x  # type: ignore[return-value]  # the kind of img

    def __repr__(self) -> str:
        args = ", ".join(f"{k}={v!r}" for k, v in vars(self).items() if not k.startswith("_"))
        return f"{type(self).__name__}({args})"


def c_chain(ops: Sequence[Any]) -> List[_C.Transform]:
    """The C++ transform chain for `ops` (built-in transforms, Compose, or any Python
    callable, which runs through a GIL-holding wrapper)."""
    chain: List[_C.Transform] = []
    for op in ops:
        if isinstance(op, TransformOp):
            chain.extend(op._c_transforms())
        elif isinstance(op, _C.Transform):
            chain.append(op)
        elif callable(op):
            chain.append(_C.t_python(op, getattr(op, "__name__", type(op).__name__)))
        else:
            raise TypeError(f"map: operation {op!r} is neither a transform nor callable")
    return chain


def pair(size: Union[int, Sequence[int]], what: str) -> Tuple[int, int]:
    """(h, w) from an int or a 1/2-sequence, validated positive."""
    if isinstance(size, (int, np.integer)):
        h = w = int(size)
    elif isinstance(size, (tuple, list)) and len(size) in (1, 2):
        h, w = int(size[0]), int(size[-1])
    else:
        raise TypeError(f"{what}: size must be an int or a sequence of 1 or 2 ints, got {size!r}")
    if h <= 0 or w <= 0:
        raise ValueError(f"{what}: size must be positive, got {size!r}")
    return h, w


def resize_args(size: Union[int, Sequence[int]], what: str) -> Tuple[int, int]:
    """(h, w) for _C.t_resize: an int resizes the shorter edge (w = 0)."""
    if isinstance(size, (int, np.integer)) or (isinstance(size, (tuple, list)) and len(size) == 1):
        s = int(size if isinstance(size, (int, np.integer)) else size[0])
        if s <= 0:
            raise ValueError(f"{what}: size must be positive, got {size!r}")
        return s, 0
    return pair(size, what)


def padding_arg(padding: Union[int, Sequence[int], None], what: str) -> Union[int, List[int]]:
    """The padding of RandomCrop as _C.t_random_crop takes it (an int or 2 / 4 ints)."""
    if padding is None:
        return 0
    if isinstance(padding, (int, np.integer)):
        return int(padding)
    if isinstance(padding, (tuple, list)) and len(padding) in (2, 4):
        return [int(p) for p in padding]
    raise TypeError(f"{what}: padding must be an int or a sequence of 2 or 4 ints, got {padding!r}")


@functools.lru_cache(maxsize=4)
def load_mnist(directory: str, split: str) -> Tuple[_C.Tensor, _C.Tensor]:
    """(uint8 images (N, 28, 28), int64 labels) of one split, read once per process."""
    return _C.load_mnist_split(directory, split)


# The cached tensors go before the interpreter tears its modules down: the cache and this
# module's globals form a cycle that is collected only after the extension module is gone,
# which nanobind then reports as leaked tensors at every exit of a script that read MNIST.
atexit.register(load_mnist.cache_clear)


class Compose(TransformOp):
    """Applies transforms in order. Built-in ones stay C++ transforms inside the loader;
    Python callables among them are called with the GIL held. The faces declare their
    framework's rules: MindSpore's takes a single callable and rejects an empty list
    (``allow_empty=False``), torchvision's accepts both.

    Args:
        transforms (Sequence[Callable] or Callable): the transforms, applied in order.
        allow_empty (bool): accept an empty list. Default: ``True``.
    """

    def __init__(self, transforms: Union[Sequence[Callable[..., Any]], Callable[..., Any]], *,
                 allow_empty: bool = True) -> None:
        if callable(transforms) and not isinstance(transforms, (list, tuple)):
            transforms = [transforms]
        self.transforms: List[Callable[..., Any]] = list(transforms)
        if not self.transforms and not allow_empty:
            raise ValueError("Compose: needs at least one transform")
        c_chain(self.transforms)  # validates early

    @property
    def _random(self) -> bool:  # type: ignore[override]  # derived from the steps
        return any(t._random for t in self.transforms if isinstance(t, TransformOp))

    def _c_transforms(self) -> List[_C.Transform]:
        return c_chain(self.transforms)

    def __call__(self, img: Any) -> Any:
        """Applies the transforms in order to one image (eager mode).

        Args:
            img (Tensor or numpy.ndarray): the image.

        Returns:
            Any: the last transform's output (of the kind of `img` when every step is a
            built-in transform).
        """
        if all(isinstance(t, TransformOp) for t in self.transforms):
            return super().__call__(img)
        for t in self.transforms:  # mixed: let each step keep its own input/output kind
            img = t(img)
        return img
