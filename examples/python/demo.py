"""tandem demo: the seed document's eager examples, then the D2L book's LeNet trained on
Fashion-MNIST in eager (PyNative) mode with the identical PyTorch-style code.

    .venv/bin/python examples/python/demo.py [--epochs N] [--limit N]
"""
import argparse
import time

import tandem
from tandem import mint
from tandem.mint import nn
from tandem.utils.data import DataLoader
from tandem.vision import datasets, transforms


def compute(x, y):
    z = x + y  # runs now: z is a real tensor you can print
    w = z * 2
    return w


def lenet() -> nn.Module:
    """The book's LeNet-5: sigmoid activations and average pooling."""
    return nn.Sequential(
        nn.Conv2d(1, 6, kernel_size=5, padding=2), nn.Sigmoid(),
        nn.AvgPool2d(kernel_size=2, stride=2),
        nn.Conv2d(6, 16, kernel_size=5), nn.Sigmoid(),
        nn.AvgPool2d(kernel_size=2, stride=2),
        nn.Flatten(),
        nn.Linear(16 * 5 * 5, 120), nn.Sigmoid(),
        nn.Linear(120, 84), nn.Sigmoid(),
        nn.Linear(84, 10))


def init_weights(m):
    if type(m) in (nn.Linear, nn.Conv2d):
        nn.init.xavier_uniform_(m.weight)


def accuracy(net, loader) -> float:
    net.eval()
    correct = total = 0
    with tandem.no_grad():
        for X, y in loader:
            correct += int((net(X).argmax(dim=1) == y).sum())
            total += y.shape[0]
    return correct / total


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--epochs", type=int, default=10)
    ap.add_argument("--limit", type=int, default=0, help="train on the first N images")
    ap.add_argument("--lr", type=float, default=0.9)
    ap.add_argument("--batch-size", type=int, default=256)
    args = ap.parse_args()

    print("== eager tensors (PyNative mode) ==")
    print("compute(Tensor([1]), Tensor([2])) =", compute(mint.Tensor([1]), mint.Tensor([2])))
    x = mint.arange(6.0).reshape(2, 3)
    print("x + x + x =", x + x + x)

    print("\n== LeNet on Fashion-MNIST, eager mode ==")
    tandem.manual_seed(0)
    train = datasets.FashionMNIST(train=True, transform=transforms.ToTensor())
    test = datasets.FashionMNIST(train=False, transform=transforms.ToTensor())
    if args.limit:
        train = tandem.utils.data.Subset(train, range(args.limit))
    train_iter = DataLoader(train, batch_size=args.batch_size, shuffle=True, num_workers=2)
    test_iter = DataLoader(test, batch_size=1024, num_workers=2)
    net = lenet()
    net.apply(init_weights)
    loss_fn = nn.CrossEntropyLoss()
    opt = mint.optim.SGD(net.parameters(), lr=args.lr)
    for epoch in range(args.epochs):
        net.train()
        t0, total, n = time.perf_counter(), 0.0, 0
        for X, y in train_iter:
            loss = loss_fn(net(X), y)
            opt.zero_grad()
            loss.backward()
            opt.step()
            total += float(loss) * y.shape[0]
            n += y.shape[0]
        secs = time.perf_counter() - t0
        print(f"epoch {epoch + 1}: loss {total / n:.3f}, test acc {accuracy(net, test_iter):.3f}, "
              f"{secs:.1f} s ({n / secs:.0f} images/s)")


if __name__ == "__main__":
    main()
