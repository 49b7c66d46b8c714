"""Op table: the matmul family, contractions and the ``linalg`` namespace."""
from __future__ import annotations

from .rows import Op

_AB = {"beta": "the multiplier of input.", "alpha": "the multiplier of the product."}

ROWS = [
    Op("matmul", "(input: Tensor, other: Tensor) -> Tensor", "_C.matmul(input, other)",
       "The matrix product with numpy's rules: 1-D operands are promoted to matrices and "
       "batch dims broadcast.", method=True, also=("linalg",),
       args={"other": "the second operand."}),
    Op("__matmul__", "(self, other: object) -> Tensor",
       "_C.matmul(self, other if isinstance(other, Tensor) else Tensor(other))",
       "self @ other.", args={"other": "the right operand."}),
    Op("__rmatmul__", "(self, other: object) -> Tensor", "_C.matmul(Tensor(other), self)",
       "other @ self, for a non-tensor left operand.", args={"other": "the left operand."}),
    Op("mm", "(input: Tensor, mat2: Tensor) -> Tensor", "_C.mm(input, mat2)",
       "The product of two matrices.", method=True, args={"mat2": "the second matrix."}),
    Op("bmm", "(input: Tensor, mat2: Tensor) -> Tensor", "_C.bmm(input, mat2)",
       "Batched matrix products of two 3-D tensors.", method=True,
       args={"mat2": "the second batch of matrices."}),
    Op("mv", "(input: Tensor, vec: Tensor) -> Tensor", "_C.mv(input, vec)",
       "The product of a matrix and a vector.", method=True, args={"vec": "the vector."}),
    Op("dot", "(input: Tensor, other: Tensor) -> Tensor", "_C.dot(input, other)",
       "The dot product of two 1-D tensors.", method=True,
       args={"other": "the second vector."}),
    Op("inner", "(input: Tensor, other: Tensor) -> Tensor",
       "_impl.linalg.inner(input, other)",
       "The inner product over the last dims (a product when either is 0-d).", method=True,
       args={"other": "the second operand."}),
    Op("outer", "(input: Tensor, vec2: Tensor) -> Tensor", "_C.outer(input, vec2)",
       "The outer product of two 1-D tensors.", method=True, aliases="ger",
       args={"vec2": "the second vector."}),
    Op("addmm", "(input: Tensor, mat1: Tensor, mat2: Tensor, *, beta: Number = 1, "
       "alpha: Number = 1) -> Tensor",
       "_C.addmm(input, mat1, mat2, beta, alpha)", "beta * input + alpha * (mat1 @ mat2).",
       method=True, args={**_AB, "mat1": "the first matrix.", "mat2": "the second matrix."}),
    Op("baddbmm", "(input: Tensor, batch1: Tensor, batch2: Tensor, *, beta: Number = 1, "
       "alpha: Number = 1) -> Tensor",
       "_C.baddbmm(input, batch1, batch2, beta, alpha)",
       "beta * input + alpha * bmm(batch1, batch2).", method=True,
       args={**_AB, "batch1": "the first batch of matrices.",
             "batch2": "the second batch of matrices."}),
    Op("tensordot", "(a: Tensor, b: Tensor, dims: Union[int, Sequence[object]] = 2) -> Tensor",
       "_impl.linalg.tensordot(a, b, dims)",
       "Contracts the last dims dims of a with the first of b, or the explicit lists "
       "(dims_a, dims_b).",
       args={"a": "the first tensor.", "b": "the second tensor.",
             "dims": "the number of dims to contract, or two lists of dims."}),
    Op("einsum", "(equation: str, *operands: Union[Tensor, Sequence[Tensor]]) -> Tensor",
       "_impl.linalg.einsum(equation, operands)",
       "Einstein summation, e.g. einsum('bij,bjk->bik', a, b).",
       args={"equation": "the subscripts of the operands and the result.",
             "operands": "the tensors (or one list of them)."}),
    Op("trace", "(input: Tensor) -> Tensor", "_C.trace(input)",
       "The sum of the main diagonal of a 2-D tensor.", method=True),
    Op("cross", "(input: Tensor, other: Tensor, dim: Optional[int] = None) -> Tensor",
       "_C.cross(*_impl.args.same_ndim('cross', input, other), "
       "_impl.linalg.cross_dim(input, dim))",
       "The cross product of 3-vectors along dim (the first dim of size 3 when dim is None, "
       "as torch.cross and mindspore.mint.cross choose it).", method=True,
       args={"other": "the second operand.",
             "dim": "the dim of size 3 (None: the first dim of input that has size 3)."}),
    Op("cross", "(input: Tensor, other: Tensor, *, dim: int = -1) -> Tensor",
       "_C.cross(*_impl.args.same_ndim('cross', input, other), dim)",
       "The cross product of 3-vectors along dim (the last by default).", ns="linalg",
       args={"other": "the second operand.", "dim": "the dim of size 3."}),
    Op("cdist", "(x1: Tensor, x2: Tensor, p: float = 2.0) -> Tensor", "_C.cdist(x1, x2, p)",
       "The p-norm distances between each row of x1 and each row of x2.",
       args={"x1": "(..., P, M) points.", "x2": "(..., R, M) points.",
             "p": "the order of the norm."}),
    Op("inverse", "(input: Tensor) -> Tensor", "_C.inv(input)",
       "The inverse of a square matrix (or of each in a batch).", method=True),
    Op("inv", "(A: Tensor) -> Tensor", "_C.inv(A)",
       "The inverse of a square matrix (or of each in a batch).", ns="linalg",
       args={"A": "the matrix or batch of matrices."}),
    Op("norm", "(A: Tensor, ord: Union[Number, str, None] = None, dim: Dim = None, "
       "keepdim: bool = False) -> Tensor",
       "_impl.linalg.norm(A, ord, dim, keepdim)",
       "A vector norm over one dim (or all, flattened, without ord and dim), a matrix norm "
       "over two (see matrix_norm).", ns="linalg",
       args={"A": "the input tensor.", "ord": "the order of the norm (None: 2, or Frobenius "
             "over two dims)."}),
    Op("vector_norm", "(x: Tensor, ord: Number = 2, dim: Dim = None, keepdim: bool = False, *, "
       "dtype: Optional[DType] = None) -> Tensor",
       "_impl.linalg.vector_norm(x, ord, dim, keepdim, dtype)",
       "The vector ord-norm over dim (all elements when None).", ns="linalg",
       args={"x": "the input tensor.", "ord": "the order of the norm."}),
    Op("matrix_norm", "(A: Tensor, ord: Union[Number, str] = 'fro', "
       "dim: Sequence[int] = (-2, -1), keepdim: bool = False) -> Tensor",
       "_impl.linalg.matrix_norm(A, ord, dim, keepdim)",
       "The matrix norm of the matrices in the dims dim.", ns="linalg",
       args={"A": "the input tensor.",
             "ord": "'fro', or 1 / -1 (largest / smallest column sum of abs values) or inf / "
                    "-inf (row sum); 2, -2 and 'nuc' need an SVD, which tandem lacks.",
             "dim": "the two matrix dims."}),
]
