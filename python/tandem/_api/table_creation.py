"""Op table: creation and random ops."""
from __future__ import annotations

from .rows import Op

_RG = "requires_grad: bool = False"
_DT = "dtype: Optional[DType] = None"
_DEV = "device: Optional[object] = None"
_SIZE_KW = "**size_kw: Size"
_SIZE_ARGS = {"size_kw": "``size=`` given by keyword, as in PyTorch's ``rand(size=(2, 3))`` "
                         "(instead of the positional size; no other keyword is accepted).",
              "device": "where the result lives: only the CPU ('cpu', ``mint.device('cpu')``) "
                        "exists; a CUDA device raises."}
_LIKE = {"input": "the tensor whose shape (and dtype, unless dtype is given) to take."}


def _grad(expr: str) -> str:
    return f"_impl.creation.with_grad({expr}, requires_grad)"


def _dev(name: str, expr: str) -> str:
    """The body ``expr`` after checking that ``device`` is the CPU."""
    return f"_impl.creation.check_device(device, {name!r})\nreturn {expr}"


def _sized(name: str, expr: str) -> str:
    """The body of a ``*size`` creation op that also takes ``size=`` by keyword: ``expr``
    reads the shape from ``shape``."""
    return (f"_impl.creation.check_device(device, {name!r})\n"
            f"shape = _impl.args.size_or_keyword(size, size_kw, {name!r})\nreturn {expr}")


def _filled(name: str, value: str, doc: str) -> Op:
    return Op(name, f"(*size: Size, {_DT}, {_DEV}, {_RG}, {_SIZE_KW}) -> Tensor",
              _sized(name, _grad(f"_C.full(shape, {value}, _impl.creation.float_dtype(dtype))")),
              doc, args=_SIZE_ARGS)


def _like(name: str, expr: str, doc: str, extra: str = "", **kw) -> Op:
    return Op(name, f"(input: Tensor{extra}, *, {_DT}, {_DEV}, {_RG}) -> Tensor",
              _dev(name, _grad(expr)), doc, args={**_LIKE, **_SIZE_ARGS, **kw.pop("args", {})},
              **kw)


ROWS = [
    Op("tensor", f"(data: object, dtype: Optional[DType] = None, *, {_DEV}, {_RG}) -> Tensor",
       _dev("tensor", _grad("_impl.creation.tensor(data, dtype)")),
       "A new tensor holding a copy of data: a number, a nested sequence, a numpy array or a "
       "tensor. Python floats become the default float dtype, ints int64, bools bool.",
       args={"data": "the values.", **_SIZE_ARGS}),
    Op("as_tensor", f"(data: object, *, dtype: Optional[DType] = None, {_DEV}) -> Tensor",
       _dev("as_tensor", "_impl.creation.as_tensor(data, dtype)"),
       "Like tensor(), but shares memory with a tensor or numpy array when no conversion is "
       "needed.", args={"data": "the values.", **_SIZE_ARGS}),
    Op("from_numpy", "(array: object) -> Tensor", "_C.from_numpy(array)",
       "A tensor sharing memory with the numpy array (writes show through both ways).",
       args={"array": "a numpy array of a supported dtype."}, grad=False),
    _filled("zeros", "0", "A tensor of the given size filled with 0."),
    _filled("ones", "1", "A tensor of the given size filled with 1."),
    Op("empty", f"(*size: Size, {_DT}, {_DEV}, {_RG}, {_SIZE_KW}) -> Tensor",
       _sized("empty", _grad("_C.empty(shape, _impl.creation.float_dtype(dtype))")),
       "A tensor of the given size with uninitialised values.", args=_SIZE_ARGS),
    Op("full", f"(size: Size, fill_value: Number, *, {_DT}, {_DEV}, {_RG}) -> Tensor",
       _dev("full", _grad("_impl.creation.full(size, fill_value, dtype)")),
       "A tensor of the given size filled with fill_value; the dtype follows the value "
       "(float -> default float dtype, int -> int64, bool -> bool) unless given.",
       args={"fill_value": "the value of every element.", **_SIZE_ARGS}),
    _like("zeros_like", "_C.full(input.shape, 0, input.dtype if dtype is None else dtype)",
          "A tensor of input's shape filled with 0."),
    _like("ones_like", "_C.full(input.shape, 1, input.dtype if dtype is None else dtype)",
          "A tensor of input's shape filled with 1."),
    _like("empty_like", "_C.empty(input.shape, input.dtype if dtype is None else dtype)",
          "An uninitialised tensor of input's shape."),
    _like("full_like",
          "_C.full(input.shape, fill_value, input.dtype if dtype is None else dtype)",
          "A tensor of input's shape filled with fill_value.", extra=", fill_value: Number",
          args={"fill_value": "the value of every element."}),
    _like("rand_like", "_C.rand(input.shape, input.dtype if dtype is None else dtype)",
          "Uniform samples in [0, 1) in input's shape."),
    _like("randn_like", "_C.randn(input.shape, input.dtype if dtype is None else dtype)",
          "Standard normal samples in input's shape."),
    Op("randint_like", f"(input: Tensor, low: int = 0, high: Optional[int] = None, *, {_DT})"
       " -> Tensor",
       "_impl.creation.randint_like(input, low, high, dtype)",
       "Random integers in [low, high) in input's shape; randint_like(x, high) draws from "
       "[0, high).", args={**_LIKE, "low": "the lowest value (or high, when high is None).",
                            "high": "one above the largest value."}, grad=False),
    # PyTorch's arange(end) / arange(start, end, step=1): `...` marks an omitted argument, so
    # that an explicit None (arange(5, None)) is refused as in PyTorch. tandem.ops has its own
    # row (table_ms.py): MindSpore's end=None means "start is the end".
    Op("arange", f"(start: Number = ..., end: Number = ..., step: Number = 1, *, "
       f"{_DT}, {_DEV}, {_RG}) -> Tensor",
       _dev("arange", _grad("_impl.creation.arange(start, end, step, dtype)")),
       "Values from start to end (exclusive) in steps of step; arange(n) counts 0..n-1. "
       "int64 when all arguments are ints, else the default float dtype.",
       args={"start": "the first value (0 when omitted); arange(n) with one argument "
                      "takes it as end.",
             "end": "the bound, not included (required; arange(n) passes it alone).",
             "step": "the difference between neighbours.", **_SIZE_ARGS}),
    Op("linspace", f"(start: Number, end: Number, steps: int, *, {_DT}, {_DEV}, {_RG}) -> Tensor",
       _dev("linspace", _grad("_impl.creation.linspace(start, end, steps, dtype)")),
       "steps evenly spaced values from start to end, both included.",
       args={"start": "the first value.", "end": "the last value.",
             "steps": "the number of values.", **_SIZE_ARGS}),
    Op("logspace", f"(start: Number, end: Number, steps: int, base: float = 10.0, *, {_DT}, "
       f"{_RG}) -> Tensor",
       _grad("_impl.creation.logspace(start, end, steps, base, dtype)"),
       "steps values from base**start to base**end, evenly spaced on a log scale.",
       args={"start": "the first exponent.", "end": "the last exponent.",
             "steps": "the number of values.", "base": "the base of the exponents."}),
    Op("eye", f"(n: int, m: Optional[int] = None, *, {_DT}, {_DEV}, {_RG}) -> Tensor",
       _dev("eye", _grad("_C.eye(n, m, _impl.creation.float_dtype(dtype))")),
       "An n x m matrix with ones on the diagonal and zeros elsewhere.",
       args={"n": "the number of rows.", "m": "the number of columns (n when None).",
             **_SIZE_ARGS}),
    Op("meshgrid", "(*tensors: Union[Tensor, Sequence[Tensor]], "
       "indexing: Optional[str] = 'ij')"
       " -> Tuple[Tensor, ...]",
       "_impl.creation.meshgrid(tensors, indexing)",
       "Coordinate grids from 1-D tensors, one grid per tensor.",
       args={"tensors": "1-D tensors (or one list of them).",
             "indexing": "'ij' (matrix indexing) or 'xy' (Cartesian)."}),
    # Number, not int: PyTorch's manual_seed takes int(seed) of a float too, and ints in
    # [-2**63, 2**64) (the generated check refuses the rest instead of wrapping them)
    Op("manual_seed", "(seed: Number) -> None", "_C.manual_seed(int(seed) & 0xFFFFFFFFFFFFFFFF)",
       "Seeds the global random generator, so later random ops repeat exactly.",
       args={"seed": "the seed."}, grad=False),
    Op("set_seed", "(seed: int) -> None", "_C.manual_seed(int(seed) & 0xFFFFFFFFFFFFFFFF)",
       "MindSpore's name for manual_seed: seeds the global random generator.",
       args={"seed": "the seed."}, grad=False),
    Op("initial_seed", "() -> int", "_C.initial_seed()",
       "The seed the global generator was last seeded with.", grad=False),
    Op("get_rng_state", "() -> Tuple[int, int]", "_C.get_rng_state()",
       "The state of the global generator as (seed, offset); pass it to set_rng_state.",
       grad=False),
    Op("set_rng_state", "(state: Tuple[int, int]) -> None", "_C.set_rng_state(*state)",
       "Restores a state returned by get_rng_state.", args={"state": "(seed, offset)."},
       grad=False),
    Op("rand", f"(*size: Size, {_DT}, {_DEV}, {_RG}, {_SIZE_KW}) -> Tensor",
       _sized("rand", _grad("_C.rand(shape, _impl.creation.float_dtype(dtype))")),
       "Uniform samples in [0, 1).", args=_SIZE_ARGS),
    Op("randn", f"(*size: Size, {_DT}, {_DEV}, {_RG}, {_SIZE_KW}) -> Tensor",
       _sized("randn", _grad("_C.randn(shape, _impl.creation.float_dtype(dtype))")),
       "Standard normal samples.", args=_SIZE_ARGS),
    Op("randint", "(low: int = 0, high: Union[int, Sequence[int], None] = None, "
       f"size: Optional[Size] = None, *, {_DT}, {_DEV}) -> Tensor",
       _dev("randint", "_impl.creation.randint(low, high, size, dtype)"),
       "Random integers in [low, high); randint(high, size) draws from [0, high).",
       args={"low": "the lowest value (or high, when only two arguments are given).",
             "high": "one above the largest value (the size, in the two-argument form "
                     "randint(high, size)).", "size": "the shape of the result.",
             **_SIZE_ARGS}, grad=False),
    Op("normal", "(mean: Union[float, Tensor], std: Union[float, Tensor] = 1.0, "
       f"size: Optional[Size] = None, *, {_DT}, {_DEV}, {_RG}) -> Tensor",
       _dev("normal", _grad("_impl.creation.normal(mean, std, size, dtype)")),
       "Normal samples with the given mean and standard deviation; with tensor mean or std "
       "the result has their broadcast shape.",
       args={"mean": "the mean (number or tensor).",
             "std": "the standard deviation (number or tensor).",
             "size": "the shape of the result (with number mean and std).", **_SIZE_ARGS}),
    Op("uniform", f"(low: float = 0.0, high: float = 1.0, size: Optional[Size] = None, *, "
       f"{_DT}, {_RG}) -> Tensor",
       _grad("_C.uniform(float(low), float(high), _impl.args.size_or_scalar(size), "
             "_impl.creation.float_dtype(dtype))"),
       "Uniform samples in [low, high).",
       args={"low": "the lower bound.", "high": "the upper bound (excluded).",
             "size": "the shape of the result."}),
    Op("bernoulli", "(input: Tensor, p: Optional[float] = None) -> Tensor",
       "_impl.creation.bernoulli(input, p)",
       "0/1 draws with probability input (or p, in input's shape).", method=True,
       args={"input": "the probabilities.", "p": "one probability for every element."},
       grad=False),
    Op("randperm", f"(n: int, *, {_DT}, {_DEV}) -> Tensor",
       _dev("randperm", "_C.randperm(int(n), _C.dtype.int64 if dtype is None else dtype)"),
       "A random permutation of 0..n-1.", args={"n": "the number of elements.", **_SIZE_ARGS},
       grad=False),
    Op("multinomial", "(input: Tensor, num_samples: int, replacement: bool = False) -> Tensor",
       "_C.multinomial(input, num_samples, replacement)",
       "Category indices drawn from each row of input (non-negative weights).", method=True,
       args={"input": "the weights of the categories (1-D or 2-D).",
             "num_samples": "the number of draws per row.",
             "replacement": "draw with replacement."}, grad=False),
]
