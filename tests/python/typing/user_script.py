"""A user's training script, type-checked with mypy --strict by test_typing.py."""
from typing import List, Tuple

import tandem
from tandem import Tensor, mint
from tandem.mint import nn, optim
from tandem.mint.nn import functional as F
from tandem.utils.data import DataLoader, TensorDataset


class MLP(nn.Module):
    def __init__(self, hidden: int) -> None:
        super().__init__()
        self.net = nn.Sequential(nn.Flatten(), nn.Linear(16, hidden), nn.ReLU(),
                                 nn.Linear(hidden, 3))

    def forward(self, x: Tensor) -> Tensor:
        out: Tensor = self.net(x)
        return F.log_softmax(out, dim=1)


def train(epochs: int) -> List[float]:
    mint.manual_seed(0)
    X = mint.randn(64, 4, 4)
    y = mint.randint(0, 3, (64,))
    loader = DataLoader(TensorDataset(X, y), batch_size=16, shuffle=True)
    model = MLP(32)
    opt = optim.SGD(model.parameters(), lr=0.1)
    losses: List[float] = []
    for _ in range(epochs):
        for xb, yb in loader:
            opt.zero_grad()
            loss = F.nll_loss(model(xb), yb)
            loss.backward()
            opt.step()
            losses.append(float(loss.item()))
    return losses


def stats(t: Tensor) -> Tuple[float, Tensor]:
    z = (t * 2 + 1).exp().sum(dim=0, keepdim=True)
    values, indices = mint.max(t, dim=1)
    with mint.no_grad():
        w = mint.zeros(3, dtype=tandem.float32) + indices.float().mean()
    return float(z.mean().item()), mint.cat([values, w], dim=0)


if __name__ == "__main__":
    print(train(1)[-1], stats(mint.randn(3, 3))[0])
