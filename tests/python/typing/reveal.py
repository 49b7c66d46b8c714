"""Expressions whose static types must be precise (no Any): checked by test_typing.py."""
import tandem
from tandem import mint
from tandem.mint import nn, optim
from tandem.mint.nn import functional as F

x = mint.randn(2, 3)
reveal_type(x)  # noqa: F821
reveal_type(x + 1)  # noqa: F821
reveal_type(x.sum(dim=0))  # noqa: F821
reveal_type(x.shape)  # noqa: F821
reveal_type(x.size(0))  # noqa: F821
reveal_type(mint.matmul(x, x.T))  # noqa: F821
reveal_type(F.relu(x, inplace=False))  # noqa: F821
reveal_type(x.item())  # noqa: F821
reveal_type(tandem.ops.exp(x))  # noqa: F821
lin = nn.Linear(3, 4)
reveal_type(lin.weight)  # noqa: F821
reveal_type(optim.SGD(lin.parameters(), lr=0.1))  # noqa: F821
reveal_type(lin.parameters())  # noqa: F821
