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
reveal_type(lin.named_parameters())  # noqa: F821
reveal_type(lin.state_dict())  # noqa: F821
reveal_type(lin.forward(x))  # noqa: F821
reveal_type(lin.eval())  # noqa: F821
reveal_type(lin.weight.grad)  # noqa: F821
opt = optim.Adam(lin.parameters(), lr=1e-3)
reveal_type(opt.step())  # noqa: F821
reveal_type(opt.step(lambda: F.mse_loss(lin(x), x)))  # noqa: F821


@tandem.no_grad()
def predict(t: tandem.Tensor) -> tandem.Tensor:
    return t * 2


reveal_type(predict)  # noqa: F821
with mint.no_grad() as ctx:
    reveal_type(ctx)  # noqa: F821
sched = optim.lr_scheduler.StepLR(opt, step_size=2)
reveal_type(sched.get_last_lr())  # noqa: F821
ds = tandem.utils.data.TensorDataset(x, x)
reveal_type(ds[0])  # noqa: F821
reveal_type(tandem.utils.data.DataLoader(ds, batch_size=2))  # noqa: F821
reveal_type(nn.LSTM(3, 4).forward(x))  # noqa: F821
