"""Docstrings of the generated functions, in the style of their face: PyTorch's
(``Args:`` / ``Keyword args:`` / ``Returns:``) for tandem.mint, MindSpore's (``Args:`` /
``Keyword Args:`` / ``Returns:`` with ``Tensor, ...``) for tandem.ops."""
from __future__ import annotations

import ast
import textwrap
from typing import List, Optional, Tuple

from .rows import GLOSSARY, Op

# How an annotation reads in each style's "(type)" slot.
_TORCH_NAMES = {"Tensor": "Tensor", "TensorLike": "Tensor or Number", "Number": "Number",
                "Dim": "int or tuple of ints, optional", "Size": "int or tuple of ints",
                "IntOrTuple": "int or tuple", "DType": "dtype", "object": "object"}
_MS_NAMES = {"Tensor": "Tensor", "TensorLike": "Union[Tensor, number.Number]",
             "Number": "number.Number", "Dim": "Union[int, tuple(int), None]",
             "Size": "Union[int, tuple(int)]", "IntOrTuple": "Union[int, tuple(int)]",
             "DType": "mindspore.dtype", "object": "object"}


def _type(node: Optional[ast.expr], style: str) -> str:
    if node is None:
        return "object"
    names = _MS_NAMES if style == "ms" else _TORCH_NAMES
    if isinstance(node, ast.Name):
        return names.get(node.id, node.id)
    if isinstance(node, ast.Constant):
        return str(node.value)
    if isinstance(node, ast.Subscript) and isinstance(node.value, ast.Name):
        head, inner = node.value.id, node.slice
        items = inner.elts if isinstance(inner, ast.Tuple) else [inner]
        parts = [_type(i, style) for i in items]
        if style == "ms":
            return f"{head}[{', '.join(parts)}]"
        if head == "Optional":
            return f"{parts[0]}, optional"
        if head == "Union":
            return " or ".join(p for p in parts if p != "None")
        if head in ("Sequence", "List"):
            return f"sequence of {parts[0]}"
        if head == "Tuple":
            return "tuple of " + (parts[0] + "s" if parts[0] == "Tensor" else parts[0])
    return ast.unparse(node)


def _params(sig: str) -> Tuple[List[Tuple[str, str, Optional[str], str]], Optional[ast.expr]]:
    """(name, kind, default, annotation) of each parameter, and the return annotation."""
    fn = ast.parse(f"def f{sig}: pass").body[0]
    a = fn.args
    out = []
    pos = a.posonlyargs + a.args
    defaults = [None] * (len(pos) - len(a.defaults)) + list(a.defaults)
    for p, d in zip(pos, defaults):
        out.append((p.arg, "pos", None if d is None else ast.unparse(d), p.annotation))
    if a.vararg is not None:
        out.append(("*" + a.vararg.arg, "pos", None, a.vararg.annotation))
    for p, d in zip(a.kwonlyargs, a.kw_defaults):
        out.append((p.arg, "kw", None if d is None else ast.unparse(d), p.annotation))
    if a.kwarg is not None:
        out.append(("**" + a.kwarg.arg, "kw", None, a.kwarg.annotation))
    return out, fn.returns


def _arg_line(row: Op, name: str, default: Optional[str], ann, style: str) -> str:
    bare = name.lstrip("*")
    desc = row.args.get(bare) or GLOSSARY.get(bare) or f"the {bare.replace('_', ' ')}."
    if default is not None and default != "...":  # "...": omitted (described in desc)
        desc += f" Default: ``{default}``."
    return f"{name} ({_type(ann, style)}): {desc}"


def _wrap(line: str, indent: str) -> List[str]:
    return textwrap.wrap(line, 92 - len(indent), initial_indent=indent,
                         subsequent_indent=indent + "    ")


def render(row: Op, sig: str, style: str) -> str:
    """The docstring of row's function with signature sig (``style``: 'torch' or 'ms')."""
    params, ret = _params(sig)
    lines = textwrap.wrap(row.doc, 92)
    pos = [p for p in params if p[1] == "pos" and p[0] != "self"]
    kw = [p for p in params if p[1] == "kw"]
    for title, group in (("Args", pos), ("Keyword Args" if style == "ms" else "Keyword args",
                                         kw)):
        if group:
            lines += ["", f"{title}:"]
            for name, _, default, ann in group:
                lines += _wrap(_arg_line(row, name, default, ann, style), "    ")
    ret_type = _type(ret, style)
    if ret_type != "None":
        sep = ", " if style == "ms" else ": "
        lines += ["", "Returns:"] + _wrap(f"{ret_type}{sep}{row.returns or 'the result.'}",
                                          "    ")
    return "\n".join(lines)


def indent(doc: str) -> str:
    """doc as the indented triple-quoted docstring of a generated function."""
    body = "\n".join(("    " + ln) if ln else "" for ln in doc.splitlines())
    return f'    r"""{body.lstrip()}\n    """'


def indent_raw(doc: str) -> str:
    return f'    r"""{doc}"""'
