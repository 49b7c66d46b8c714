"""Explains a call to a ``tandem._C`` function whose arguments match none of its signatures.

nanobind's own message lists every overload's signature; the extension calls ``explain``
instead (python/bindings/arg_errors.cpp) to say which argument is wrong, what it should be,
and which op the user called: ``conv1d(): argument 'weight' must be a Tensor, not str``.
Only runs on that error path.
"""
from __future__ import annotations

import os
import re
from typing import List, Optional, Tuple

_PKG = os.path.dirname(os.path.abspath(__file__))
_GENERATED = os.path.join(_PKG, "_generated")

# (name, annotation, has default, kind) where kind is "pos", "kwonly", "varargs", "varkw"
Param = Tuple[str, str, bool, str]


def _split_top(s: str, sep: str = ",") -> List[str]:
    """Splits at `sep` outside brackets."""
    out, depth, cur = [], 0, []
    for ch in s:
        if ch in "[(":
            depth += 1
        elif ch in "])":
            depth -= 1
        if ch == sep and depth == 0:
            out.append("".join(cur).strip())
            cur = []
        else:
            cur.append(ch)
    if "".join(cur).strip():
        out.append("".join(cur).strip())
    return out


def _params(sig: str) -> List[Param]:
    m = re.match(r"\s*def\s+\w+\((.*)\)(\s*->.*)?$", sig, re.S)
    if not m:
        return []
    params: List[Param] = []
    kind = "pos"
    for part in _split_top(m.group(1)):
        if part == "/":
            continue
        if part == "*":
            kind = "kwonly"
            continue
        name, _, rest = part.partition(":")
        ann, eq, _default = rest.partition("=")
        name = name.strip()
        if name.startswith("**"):
            params.append((name[2:], ann.strip(), True, "varkw"))
        elif name.startswith("*"):
            params.append((name[1:], ann.strip(), True, "varargs"))
            kind = "kwonly"
        else:
            params.append((name, ann.strip() or "object", bool(eq), kind))
    return params


def _describe(ann: str) -> str:
    """An annotation as words: 'a Tensor', 'a sequence of ints', 'an int or None'."""
    ann = ann.strip()
    alts = _split_top(ann, "|")
    if len(alts) > 1:
        return " or ".join(_describe(a) for a in alts)
    m = re.match(r"(?:typing\.)?Optional\[(.*)\]$", ann)
    if m:
        return _describe(m.group(1)) + " or None"
    m = re.match(r"(?:collections\.abc\.Sequence|list|typing\.List|typing\.Sequence)\[(.*)\]$",
                 ann)
    if m:
        inner = _describe(m.group(1))
        inner = re.sub(r"^an? ", "", inner)
        return f"a sequence of {inner}s" if " or " not in inner else f"a sequence of ({inner})"
    m = re.match(r"tuple\[(.*)\]$", ann)
    if m:
        items = _split_top(m.group(1))
        return "a tuple (" + ", ".join(_describe(i) for i in items) + ")"
    simple = {
        "tandem._C.Tensor": "a Tensor", "int": "an int", "float": "a number (float)",
        "bool": "a bool", "str": "a str", "None": "None", "tandem._C.dtype": "a tandem dtype",
        "collections.abc.Callable": "a callable", "object": "any value",
    }
    if ann in simple:
        return simple[ann]
    if ann.startswith("collections.abc.Mapping") or ann.startswith("dict"):
        return "a dict"
    return ann.replace("tandem._C.", "")


def _fits(value, ann: str) -> bool:
    """Whether nanobind could accept `value` for `ann` (lenient: unknown types fit)."""
    from . import _C
    ann = ann.strip()
    alts = _split_top(ann, "|")
    if len(alts) > 1:
        return any(_fits(value, a) for a in alts)
    m = re.match(r"(?:typing\.)?Optional\[(.*)\]$", ann)
    if m:
        return value is None or _fits(value, m.group(1))
    if ann == "None":
        return value is None
    if ann == "object" or not ann:
        return True
    if ann == "tandem._C.Tensor":
        return isinstance(value, _C.Tensor)
    if ann == "tandem._C.dtype":
        return isinstance(value, _C.dtype)
    if ann == "int":
        if isinstance(value, bool):
            return True
        if isinstance(value, int):
            return -(1 << 63) <= value < (1 << 63)
        return hasattr(value, "__index__") and not isinstance(value, _C.Tensor)
    if ann == "float":
        return isinstance(value, (int, float)) or (
            hasattr(value, "__float__") and not isinstance(value, (_C.Tensor, str)))
    if ann == "bool":
        return isinstance(value, bool) or type(value).__name__ == "bool_"
    if ann == "str":
        return isinstance(value, str)
    if ann == "collections.abc.Callable":
        return callable(value)
    m = re.match(r"(?:collections\.abc\.Sequence|list|typing\.List|typing\.Sequence)\[(.*)\]$",
                 ann)
    if m:
        if isinstance(value, (str, bytes)) or not hasattr(value, "__iter__") or \
                isinstance(value, _C.Tensor):
            return False
        try:
            return all(_fits(v, m.group(1)) for v in value)
        except TypeError:
            return False
    m = re.match(r"tuple\[(.*)\]$", ann)
    if m:
        items = _split_top(m.group(1))
        if not isinstance(value, (tuple, list)) or len(value) != len(items):
            return False
        return all(_fits(v, a) for v, a in zip(value, items))
    return True


def _type_name(value) -> str:
    if value is None:
        return "None"
    from . import _C
    if isinstance(value, _C.Tensor):
        return "Tensor"
    if isinstance(value, (list, tuple)) and value:
        inner = sorted({_type_name(v) for v in value})
        return f"{type(value).__name__} of {'/'.join(inner)}"
    return type(value).__name__


def _problem(params: List[Param], args: tuple, kwargs: dict) -> Optional[str]:
    """What is wrong with (args, kwargs) for one signature, or None when nothing is found."""
    positional = [p for p in params if p[3] == "pos"]
    varargs = any(p[3] == "varargs" for p in params)
    varkw = any(p[3] == "varkw" for p in params)
    by_name = {p[0]: p for p in params if p[3] in ("pos", "kwonly")}
    if len(args) > len(positional) and not varargs:
        return (f"takes {len(positional)} positional argument"
                f"{'' if len(positional) == 1 else 's'} but {len(args)} were given")
    bound = {}
    for p, v in zip(positional, args):
        bound[p[0]] = v
    for k, v in kwargs.items():
        if k not in by_name:
            if not varkw:
                return f"got an unexpected keyword argument '{k}'"
            continue
        if k in bound:
            return f"got multiple values for argument '{k}'"
        bound[k] = v
    for name, ann, has_default, kind in params:
        if kind in ("varargs", "varkw") or name == "self":
            continue
        if name not in bound:
            if not has_default:
                return f"missing required argument '{name}'"
            continue
        value = bound[name]
        if not _fits(value, ann):
            if isinstance(value, int) and not isinstance(value, bool) and \
                    "int" in [a.strip() for a in _split_top(ann, "|")]:
                return _OutOfRange(f"argument '{name}' = {value} does not fit a 64-bit int "
                                   "(the int64 range is [-2**63, 2**63 - 1])")
            hint = ""
            if ann.strip() == "int":  # a float, even 2.0, or a float Tensor: say how to fix it
                from ._impl.args import _int_fix
                hint = _int_fix(name, value)
            return f"argument '{name}' must be {_describe(ann)}, not {_type_name(value)}{hint}"
    return None


class _OutOfRange(str):
    """A problem that is an int beyond int64: a ValueError, as PyTorch raises it ("Overflow
    when unpacking long"), not a TypeError."""


def _public_name(frame, fallback: str) -> str:
    """The op the user called: the outermost frame of tandem's generated public functions
    in the chain of tandem frames that led to this call."""
    name = None
    f = frame
    while f is not None:
        path = os.path.abspath(f.f_code.co_filename)
        if not path.startswith(_PKG + os.sep):
            break
        if path.startswith(_GENERATED + os.sep):
            name = f.f_code.co_name
        f = f.f_back
    return name or fallback


def explain(fn, args: tuple, kwargs: dict, frame) -> Optional[object]:
    """A message for a failed overload resolution of nanobind function `fn` (raised as a
    TypeError), or a ValueError to raise when the only problem is an int beyond int64."""
    c_name = getattr(fn, "__name__", "function")
    name = _public_name(frame, c_name)
    sigs = [s[0] for s in getattr(fn, "__nb_signature__", ())]
    problems = []
    for sig in sigs:
        p = _problem(_params(sig), args, kwargs)
        if p is None:
            problems = []
            break
        problems.append(p)
    if len(problems) == 1 or (problems and len(set(problems)) == 1):
        msg = f"{name}(): {problems[0]}"
        if isinstance(problems[0], _OutOfRange):
            return ValueError(msg)
    elif problems:
        msg = f"{name}(): no form accepts these arguments: " + "; ".join(
            f"({i + 1}) {p}" for i, p in enumerate(problems))
    else:
        got = ", ".join([_type_name(a) for a in args] +
                        [f"{k}={_type_name(v)}" for k, v in kwargs.items()])
        forms = " | ".join(re.sub(r"^def \w+", "", s).replace("tandem._C.", "")
                           for s in sigs)
        msg = f"{name}(): invalid arguments ({got}); expected {forms}"
    return msg
