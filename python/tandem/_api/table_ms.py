"""Op table: functions only MindSpore's face (``tandem.ops``) has, or where its signature or
meaning differs from PyTorch's under the same name (then this row shadows the torch row in
``tandem.ops``)."""
from __future__ import annotations

from .rows import Op

ROWS = [
    Op("stop_gradient", "(x: Tensor) -> Tensor", "x.detach()",
       "x without gradient history: gradients do not flow through it.", ns="ms",
       args={"x": "the input tensor."}, grad=False),
]
