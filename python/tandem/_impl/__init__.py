"""The logic behind the ops whose public form needs more than one call into ``tandem._C``:
argument normalisation (dims, sizes, pairs), overloads (``max(x, dim)`` vs
``max(x, other)``) and composites. The generated functions of every face call these; no face
defines an op's behaviour itself."""
from . import args, creation, elementwise, index, linalg, ms, nn, reduce, shape, sort  # noqa: F401
