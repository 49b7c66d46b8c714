"""Transforms computed in Python on numpy arrays, and the ones that combine other transforms
(RandomApply, RandomChoice, RandomSelectSubpolicy).

In Dataset.map, a random one runs on the pipeline's consuming thread (not in the Loader's
workers) with a generator seeded from the pipeline's seed, the row and its place in the
map, so dataset.config.set_seed / tandem.manual_seed fix its draws; a deterministic one may
run in the workers. Called directly (eager mode) a transform draws its seed from tandem's
global generator and returns the kind it was given (numpy array, Tensor or PIL image).
"""
from __future__ import annotations

import numbers
from typing import Any, Callable, List, Sequence, Tuple

import numpy as np

from .. import _C
from .._data.common import Compose, TransformOp, as_tensor, draw_seed

Tensor = _C.Tensor


def as_numpy(x: Any) -> np.ndarray:
    """A numpy view of a Tensor, numpy array or array-like (PIL image included)."""
    return np.asarray(x.numpy() if isinstance(x, Tensor) else x)


def _rng(seed: int) -> np.random.Generator:
    return np.random.default_rng([seed & 0xFFFFFFFF, (seed >> 32) & 0xFFFFFFFF])


class PyTransformOp(TransformOp):
    """A transform computed in Python on numpy arrays (see the module docstring)."""

    def _apply_np(self, x: np.ndarray, rng: np.random.Generator) -> Any:
        raise NotImplementedError

    def _c_transforms(self) -> List[_C.Transform]:
        # Inside a C++ chain (a Compose run by the Loader) there is no per-row seed: a random
        # transform then draws from its own generator, seeded once here.
        rng = _rng(draw_seed() if self._random else 0)
        name = type(self).__name__
        return [_C.t_python(lambda t: self._apply_np(as_numpy(t), rng), name)]

    def __call__(self, img: Any) -> Any:
        """Applies the transform to one value (eager mode).

        Args:
            img (Union[numpy.ndarray, Tensor, PIL.Image.Image]): the input.

        Returns:
            Union[numpy.ndarray, Tensor, PIL.Image.Image], the result, of the input's kind.
        """
        rng = _rng(draw_seed() if self._random else 0)
        out = self._apply_np(as_numpy(img), rng)
        if isinstance(img, Tensor):
            return as_tensor(np.ascontiguousarray(out))
        if type(img).__module__.startswith("PIL."):
            from PIL import Image
            return Image.fromarray(np.ascontiguousarray(out))
        return out


def needs_python(op: Any) -> bool:
    """Whether a map operation must run in Python with a per-row generator."""
    if isinstance(op, PyTransformOp):
        return bool(op._random)
    if isinstance(op, Compose):
        return any(needs_python(t) for t in op.transforms)
    return False


def apply_op(op: Any, x: Any, rng: np.random.Generator) -> Any:
    """Applies one operation to a value with the randomness of `rng`; built-in transforms
    get a seed drawn from it, Python callables the value as numpy (as MindSpore passes it)."""
    if isinstance(op, PyTransformOp):
        return op._apply_np(as_numpy(x), rng)
    if isinstance(op, Compose):
        for t in op.transforms:
            x = apply_op(t, x, rng)
        return x
    if isinstance(op, (TransformOp, _C.Transform)):
        v = as_tensor(np.ascontiguousarray(x) if not isinstance(x, Tensor) else x)
        seed = int(rng.integers(1 << 62))
        for c in (op._c_transforms() if isinstance(op, TransformOp) else [op]):
            v = c(v, seed, 0)
        return v.numpy()
    if callable(op):
        return op(as_numpy(x) if isinstance(x, Tensor) else x)
    raise TypeError(f"{op!r} is neither a transform nor callable")


def _check_transforms(transforms: Any, name: str) -> List[Callable[..., Any]]:
    if not isinstance(transforms, (list, tuple)) or not transforms:
        raise TypeError(f"{name}: transforms must be a non-empty list of transforms, got "
                        f"{transforms!r}")
    for k, t in enumerate(transforms):
        if not callable(t):
            raise TypeError(f"{name}: transforms[{k}] = {t!r} is not callable")
    return list(transforms)


def check_prob(prob: Any, name: str) -> float:
    """A probability in [0, 1]."""
    if isinstance(prob, bool) or not isinstance(prob, numbers.Real):
        raise TypeError(f"{name}: prob must be a number, got {prob!r}")
    if not 0.0 <= float(prob) <= 1.0:
        raise ValueError(f"{name}: prob must be in [0.0, 1.0], got {prob}")
    return float(prob)


class RandomApply(PyTransformOp):
    """Applies all the transforms, in order, with probability `prob`, or none of them.

    Args:
        transforms (list): the transforms (built-in ones or Python callables).
        prob (float): the probability of applying them, in [0, 1]. Default: ``0.5`` .
    """

    _random = True

    def __init__(self, transforms: Sequence[Callable[..., Any]], prob: float = 0.5) -> None:
        self.transforms = _check_transforms(transforms, "RandomApply")
        self.prob = check_prob(prob, "RandomApply")

    def _apply_np(self, x: np.ndarray, rng: np.random.Generator) -> Any:
        if rng.random() < self.prob:
            for t in self.transforms:
                x = apply_op(t, x, rng)
        return x


class RandomChoice(PyTransformOp):
    """Applies one of the transforms, chosen uniformly at random.

    Args:
        transforms (list): the transforms (built-in ones or Python callables).
    """

    _random = True

    def __init__(self, transforms: Sequence[Callable[..., Any]]) -> None:
        self.transforms = _check_transforms(transforms, "RandomChoice")

    def _apply_np(self, x: np.ndarray, rng: np.random.Generator) -> Any:
        return apply_op(self.transforms[int(rng.integers(len(self.transforms)))], x, rng)


class RandomSelectSubpolicy(PyTransformOp):
    """Picks one sub-policy uniformly at random, then applies its transforms in order, each
    with its own probability (AutoAugment's policies).

    Args:
        policy (list[list[tuple[Callable, float]]]): the sub-policies; a sub-policy is a
            list of (transform, probability in [0, 1]).
    """

    _random = True

    def __init__(self, policy: Sequence[Sequence[Tuple[Callable[..., Any], float]]]) -> None:
        name = "RandomSelectSubpolicy"
        if not isinstance(policy, (list, tuple)) or not policy:
            raise TypeError(f"{name}: policy must be a non-empty list of sub-policies, got "
                            f"{policy!r}")
        subs: List[List[Tuple[Callable[..., Any], float]]] = []
        for i, sub in enumerate(policy):
            if not isinstance(sub, (list, tuple)) or not sub:
                raise TypeError(f"{name}: policy[{i}] must be a non-empty list of "
                                f"(transform, prob), got {sub!r}")
            items = []
            for j, item in enumerate(sub):
                if not isinstance(item, (list, tuple)) or len(item) != 2 or not callable(item[0]):
                    raise TypeError(f"{name}: policy[{i}][{j}] must be (transform, prob), got "
                                    f"{item!r}")
                items.append((item[0], check_prob(item[1], f"{name}: policy[{i}][{j}]")))
            subs.append(items)
        self.policy = subs

    def _apply_np(self, x: np.ndarray, rng: np.random.Generator) -> Any:
        for op, p in self.policy[int(rng.integers(len(self.policy)))]:
            if rng.random() < p:
                x = apply_op(op, x, rng)
        return x


class Fill(PyTransformOp):
    """Sets every element to `fill_value` (cast to the input's dtype; same shape).

    Args:
        fill_value (Union[str, bytes, int, float, bool]): the value.
    """

    def __init__(self, fill_value: Any) -> None:
        if not isinstance(fill_value, (str, bytes, int, float, bool, np.generic)):
            raise TypeError(f"Fill: fill_value must be a str, bytes, int, float or bool, got "
                            f"{fill_value!r}")
        self.fill_value = fill_value

    def _apply_np(self, x: np.ndarray, rng: np.random.Generator) -> Any:
        is_text = isinstance(self.fill_value, (str, bytes))
        if is_text != (x.dtype.kind in "SU"):
            raise TypeError(f"Fill: cannot fill an array of dtype {x.dtype} with "
                            f"{self.fill_value!r}")
        if is_text:
            return np.full(x.shape, self.fill_value)
        return np.full(x.shape, self.fill_value).astype(x.dtype)


class OneHot(PyTransformOp):
    """One-hot encodes integer labels: shape (*) becomes (*, num_classes), of the labels'
    dtype; with a smoothing rate s the values are (1 - s) * onehot + s / num_classes, as
    float32.

    Args:
        num_classes (int): the number of classes (> 0).
        smoothing_rate (float): the label smoothing rate, in [0, 1]. Default: ``0.0`` .
    """

    def __init__(self, num_classes: int, smoothing_rate: float = 0.0) -> None:
        if isinstance(num_classes, bool) or not isinstance(num_classes, int) or num_classes < 1:
            raise ValueError(f"OneHot: num_classes must be a positive int, got {num_classes!r}")
        if isinstance(smoothing_rate, bool) or not isinstance(smoothing_rate, numbers.Real) \
                or not 0.0 <= float(smoothing_rate) <= 1.0:
            raise ValueError(f"OneHot: smoothing_rate must be a number in [0, 1], got "
                             f"{smoothing_rate!r}")
        self.num_classes: int = num_classes
        self.smoothing_rate: float = float(smoothing_rate)

    def _apply_np(self, x: np.ndarray, rng: np.random.Generator) -> Any:
        if x.dtype.kind not in "iu":
            raise TypeError(f"OneHot: labels must be integers, got dtype {x.dtype}")
        if x.size and (x.min() < 0 or x.max() >= self.num_classes):
            raise ValueError(f"OneHot: labels must be in [0, {self.num_classes}), got values in "
                             f"[{x.min()}, {x.max()}]")
        hot = x[..., None] == np.arange(self.num_classes)
        if not self.smoothing_rate:
            return hot.astype(x.dtype)
        s = self.smoothing_rate
        return (hot * (1 - s) + s / self.num_classes).astype(np.float32)
