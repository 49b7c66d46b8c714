"""Known, deliberate differences between tandem.mint and PyTorch 2.13 (the differential
fuzzer's oracle), each with its reason. A mismatch the fuzzer finds is either fixed at its root
or listed here; anything not listed fails the CI budget (tests/python/test_differential.py).
"""
from __future__ import annotations

import re
from typing import Callable, List, Optional, Tuple

#: Ops the fuzzer does not run: stateful or without a value to compare.
SKIP = {
    "manual_seed": "sets the global generator: not a function of its arguments",
    "set_seed": "MindSpore name of manual_seed; sets global state",
    "initial_seed": "reads global generator state",
    "get_rng_state": "tandem's state is (seed, offset), PyTorch's a ByteTensor: different by design",
    "set_rng_state": "takes the state get_rng_state returns, which differs by design",
    "from_numpy": "takes a numpy array; the fuzzer's tensors are not arrays",
    "uniform": "MindSpore-style sampler without a torch function of that name",
}

#: Ops whose values are not compared (shape and dtype are).
SHAPE_ONLY = {
    "empty": "uninitialized memory", "empty_like": "uninitialized memory",
    "rand": "random", "randn": "random", "randint": "random", "rand_like": "random",
    "randn_like": "random", "randint_like": "random", "normal": "random",
    "bernoulli": "random", "randperm": "random", "multinomial": "random",
    "dropout": "random", "dropout2d": "random",
}

#: Ops returning (values, indices) where several indices are right for tied values: the
#: values are compared, the indices only when they agree.
TIES = {"sort", "argsort", "topk", "kthvalue", "max", "min", "median", "nanmedian", "mode",
        "cummax", "cummin", "argmax", "argmin", "unique"}

#: Ops not run under @jit by the fuzzer.
NO_JIT = {name: "random: eager and graph draw different numbers" for name in SHAPE_ONLY
          if name not in ("empty", "empty_like")}

#: Ops whose graph-mode values may differ from eager in the last bits (others must be
#: bit-identical).
JIT_INEXACT: dict = {}

# (op regex, mode regex, status regex, detail regex, reason). The first match classifies a
# mismatch as known.
_NUM = r"(int|float|bool)"
RULES: List[Tuple[str, str, str, str, str]] = [
    # --- tandem accepts more than torch, on purpose (each is declared in the op table) ---
    (".*", ".*", "tandem_accepts",
     rf"must be Tensor, not {_NUM}\b|got \({_NUM}, |got \(Tensor, {_NUM}[,)]|"
     rf"'(other|input|values|end|weight)' \(position \d\) must be Tensor, not {_NUM}",
     "a Python number is accepted for any TensorLike operand (op table: TensorLike), as a "
     "weak scalar in type promotion; torch's maximum/atan2/hypot/lt/... functions want a "
     "Tensor there"),
    (".*", ".*", "tandem_accepts",
     r"unexpected keyword argument '(axis|keepdims|ddof)'|\b(axis|keepdims|ddof)=",
     "numpy / MindSpore keyword aliases (axis, keepdims, ddof) are part of the mint "
     "signatures (op table) so code written for either reads the same"),
    (".*", ".*", "tandem_accepts", r"must be tuple of ints, not int|got \(Tensor, int, list\)",
     "an int where torch wants a tuple of ints (flip, tile, movedim) is taken as a "
     "one-element tuple"),
    ("softmax|log_softmax", ".*", "tandem_accepts",
     r"missing 1 required positional arguments: \"dim\"|'dim' .*must be int, not NoneType",
     "dim=None is F.softmax's legacy implicit dim (mint.softmax is F.softmax); "
     "torch.softmax itself requires dim"),
    ("dropout", ".*", "tandem_accepts", r"missing \d required positional argument",
     "mint.dropout has F.dropout's defaults (p=0.5, training=True); torch.dropout has none"),
    ("tensor|as_tensor", ".*", "tandem_accepts", r"takes 1 positional argument but 2",
     "dtype may be passed positionally, as MindSpore's Tensor(input_data, dtype) takes it"),
    ("argsort|sort", ".*", "tandem_accepts",
     r"takes from 2 to 1 positional|got \(Tensor, bool",
     "stable (and descending) may be passed positionally"),
    ("normal", ".*", "tandem_accepts", r"normal\(\) received an invalid combination",
     "mint.normal takes mean, std and size together (MindSpore's ops.normal(shape, mean, "
     "stddev) form); torch splits them across overloads"),
    ("floor_divide|remainder|fmod", "backward", "tandem_accepts",
     r"derivative for aten::\w+ is not implemented",
     "tandem differentiates floor_divide (gradient 0) and remainder/fmod (gradient 1 wrt "
     "input) like MindSpore's FloorDiv/FloorMod bprops; torch raises"),
    ("mode|median|nanmedian|kthvalue", ".*", "tandem_accepts",
     r"'dim' must be int, not NoneType",
     "dim=None reduces over the flattened input (as median() without dim does in torch)"),
    # --- graph mode ---
    ("unique|unique_consecutive|nonzero|argwhere|masked_select|where|bincount|equal|allclose|"
     "repeat_interleave|histc|index_put|masked_fill|multinomial",
     "jit", "jit_rejects", r"symbolic",
     "the result's shape or Python value depends on the data: graph mode needs static "
     "shapes, and says so with a clear error (as MindSpore's graph mode does)"),
    # --- torch quirks tandem does not copy ---
    ("all|any", "forward|inplace", "wrong", r"dtype bool vs uint8",
     "all/any of a uint8 tensor is uint8 in torch (a legacy quirk); tandem, numpy and "
     "MindSpore return bool"),
    ("index_put", "forward|inplace", "wrong", r"values differ",
     "duplicate indices with accumulate=False: torch documents the winner as undefined"),
]

_COMPILED: Optional[List[Tuple[Callable, ...]]] = None


def match(case: dict, status: str, detail: str) -> Optional[str]:
    """The reason a mismatch is deliberate, or None when it is a finding."""
    global _COMPILED
    if _COMPILED is None:
        _COMPILED = [(re.compile(o), re.compile(m), re.compile(s), re.compile(d, re.S), r)
                     for o, m, s, d, r in RULES]
    for o, m, s, d, reason in _COMPILED:
        if (o.fullmatch(case["op"]) and m.fullmatch(case["mode"]) and s.fullmatch(status)
                and d.search(detail)):
            return reason
    return None
