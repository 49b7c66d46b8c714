"""The row type of the op table and the helpers that write many rows at once.

A row declares one public op once: its Python signature with defaults, the call into the
C++ core (or into a private helper in ``tandem._impl``), its method and in-place forms,
aliases, the namespaces that export it, its docstring and whether it is differentiable.
``tandem._api.gen`` turns the table into the functions of every face, the Tensor methods
and the type stubs. This module must not import ``tandem._C``: the generator runs without
a build.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Dict, Optional, Sequence, Tuple, Union

#: Namespaces a row can be defined in or exported from:
#: "torch" = ``tandem`` / ``tandem.mint`` (PyTorch names), "F" = ``mint.nn.functional``,
#: "linalg" = ``mint.linalg``, "ms" = ``tandem.ops`` (MindSpore names).
NAMESPACES = ("torch", "F", "linalg", "ms")


@dataclass
class Op:
    """One public op.

    Attributes:
        name: the exported name in its namespace (``ns``).
        sig: the Python signature with annotations and defaults, e.g.
            ``"(input: Tensor, other: TensorLike, *, alpha: Number = 1) -> Tensor"``.
        call: the body: an expression whose value is returned, or several statements
            (with their own ``return``). It calls ``_C.*`` or helpers of ``tandem._impl``.
        doc: the summary paragraph(s) of the docstring.
        ns: the namespace the function is defined in.
        also: further namespaces that export the same function under the same name.
        args: descriptions of parameters, overriding the shared glossary.
        returns: what the result is (the Returns section).
        method: attach as a Tensor method (True: under ``name``; a str: under that name).
        method_sig / method_call: a method with its own signature (``self`` first), as
            ``Tensor.reshape(*shape)`` has; otherwise the method is the function itself.
        inplace: the body of the in-place method ``<name>_`` (``self`` is the tensor).
        aliases: other names for the same function, exported wherever it is.
        grad: differentiable with respect to its tensor inputs.
        ms: False keeps a torch row out of ``tandem.ops`` (MindSpore's op differs).
    """

    name: str
    sig: str
    call: str
    doc: str
    ns: str = "torch"
    also: Tuple[str, ...] = ()
    args: Dict[str, str] = field(default_factory=dict)
    returns: str = ""
    method: Union[bool, str] = False
    method_sig: Optional[str] = None
    method_call: Optional[str] = None
    inplace: Optional[str] = None
    aliases: Tuple[str, ...] = ()
    grad: bool = True
    ms: bool = True

    def __post_init__(self) -> None:
        if self.ns not in NAMESPACES or any(a not in NAMESPACES for a in self.also):
            raise ValueError(f"op table: {self.name}: unknown namespace in {self.ns}/{self.also}")
        if isinstance(self.aliases, str):
            self.aliases = tuple(self.aliases.split())
        if isinstance(self.also, str):
            self.also = tuple(self.also.split())

    @property
    def method_name(self) -> Optional[str]:
        if not self.method:
            return None
        return self.name if self.method is True else str(self.method)

    @property
    def key(self) -> str:
        """Unique across the table: the namespace-qualified name."""
        return self.name if self.ns == "torch" else f"{self.ns}.{self.name}"


def unary(names_docs: Dict[str, str], *, inplace: Sequence[str] = (), grad: bool = True,
          returns: str = "", method: bool = True) -> list:
    """Rows for ``f(input) -> Tensor`` ops whose C++ function has the same name; names in
    ``inplace`` also get the in-place method ``f_``."""
    rows = []
    for name, doc in names_docs.items():
        rows.append(Op(name, "(input: Tensor) -> Tensor", f"_C.{name}(input)", doc,
                       method=method, grad=grad, returns=returns,
                       inplace=f"self._inplace_unary({name!r})" if name in inplace else None))
    return rows


def binary(names_docs: Dict[str, str], *, inplace: Sequence[str] = (), grad: bool = True,
           returns: str = "", other: str = "TensorLike") -> list:
    """Rows for ``f(input, other) -> Tensor`` ops (broadcasting, type promotion)."""
    rows = []
    for name, doc in names_docs.items():
        rows.append(Op(name, f"(input: TensorLike, other: {other}) -> Tensor",
                       f"_C.{name}(input, other)", doc, method=True, grad=grad,
                       returns=returns,
                       inplace=(f"self._inplace_binary({name!r}, other)" if name in inplace
                                else None)))
    return rows


#: Descriptions of parameters that mean the same everywhere (a row's ``args`` overrides).
GLOSSARY = {
    "input": "the input tensor.",
    "other": "the second operand: a tensor or a number, broadcast against input.",
    "dim": "the dimension or dimensions to reduce (all when None).",
    "keepdim": "whether the result keeps each reduced dimension with size 1.",
    "dtype": "the data type of the result (the default float type when None, for "
             "floating-point results).",
    "axis": "numpy's and MindSpore's name for dim.",
    "keepdims": "numpy's and MindSpore's name for keepdim.",
    "requires_grad": "whether autograd records operations on the result.",
    "size": "the shape of the result, as separate ints or one sequence.",
    "generator": "unused; tandem has one global generator (see manual_seed).",
    "tensors": "a list or tuple of tensors.",
    "weight": "the weight tensor.",
    "bias": "the optional bias tensor.",
    "inplace": "write the result into input and return input.",
    "reduction": "'none', 'mean' or 'sum': how the per-element losses are reduced.",
    "size_average": "deprecated (PyTorch's legacy flag); folded into reduction.",
    "reduce": "deprecated (PyTorch's legacy flag); folded into reduction.",
    "target": "the target tensor.",
    "training": "apply the training-time behaviour (batch statistics, dropout).",
    "eps": "a value added to the variance for numerical stability.",
    "momentum": "the weight of the new batch statistics in the running statistics.",
    "stride": "the stride of the window (one int for every spatial dim, or one per dim).",
    "padding": "implicit zero padding on both sides (one int for every spatial dim, or "
               "one per dim).",
    "dilation": "the spacing between kernel elements.",
    "kernel_size": "the size of the window.",
    "ceil_mode": "use ceil instead of floor to compute the output size.",
    "output_size": "the target output size (None keeps that input dim).",
    "return_indices": "also return the indices of the maxima.",
    "groups": "the number of blocked connections from input channels to output channels.",
    "descending": "sort in descending order.",
    "stable": "keep the order of equal elements (tandem's sort is always stable).",
    "alpha": "the multiplier for other.",
}
