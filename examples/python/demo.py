"""tandem demo: the seed document's examples, then the D2L book's LeNet trained on
Fashion-MNIST twice from the same seed: eager (PyNative) mode, then with the training step
compiled into one graph by @jit (forward, loss, value_and_grad and the optimizer update).

    .venv/bin/python examples/python/demo.py [--epochs N] [--limit N]
"""
import argparse
import time

import tandem
from tandem import jit, mint
from tandem import nn as ms_nn
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

    @jit
    def add_func(a, b):
        return a + b

    print("@jit add_func(10, 20) =", add_func(mint.Tensor([10]), mint.Tensor([20])))
    triple = jit(lambda t: t + t + t)
    print(triple.explain(mint.randn(4)))

    tandem.manual_seed(0)
    train = datasets.FashionMNIST(train=True, transform=transforms.ToTensor())
    test = datasets.FashionMNIST(train=False, transform=transforms.ToTensor())
    if args.limit:
        train = tandem.utils.data.Subset(train, range(args.limit))
    test_iter = DataLoader(test, batch_size=1024, num_workers=2)
    loss_fn = nn.CrossEntropyLoss()
    results = {}
    for mode in ("eager", "graph"):
        print(f"\n== LeNet on Fashion-MNIST, {mode} mode ==")
        tandem.manual_seed(1)
        net = lenet()
        net.apply(init_weights)
        train_iter = DataLoader(train, batch_size=args.batch_size, shuffle=True, num_workers=2)
        if mode == "eager":
            opt = mint.optim.SGD(net.parameters(), lr=args.lr)

            def train_step(X, y):
                loss = loss_fn(net(X), y)
                opt.zero_grad()
                loss.backward()
                opt.step()
                return loss
        else:  # the same model code; the whole step becomes one compiled graph
            opt = ms_nn.SGD(net.trainable_params(), learning_rate=args.lr)
            grad_fn = tandem.value_and_grad(lambda X, y: loss_fn(net(X), y), None, opt.parameters)

            @jit
            def train_step(X, y):
                loss, grads = grad_fn(X, y)
                opt(grads)
                return loss
        times = []
        for epoch in range(args.epochs):
            net.train()
            t0, total, n = time.perf_counter(), 0.0, 0
            for X, y in train_iter:
                loss = train_step(X, y)
                total += float(loss) * y.shape[0]
                n += y.shape[0]
            times.append(time.perf_counter() - t0)
            acc = accuracy(net, test_iter)
            print(f"epoch {epoch + 1}: loss {total / n:.3f}, test acc {acc:.3f}, "
                  f"{times[-1]:.1f} s ({n / times[-1]:.0f} images/s)")
        results[mode] = (sorted(times)[len(times) // 2], acc)
    (te, ae), (tg, ag) = results["eager"], results["graph"]
    print(f"\nseconds per epoch: eager {te:.2f}, graph {tg:.2f} (speed-up {te / tg:.2f}x); "
          f"test accuracy: eager {ae:.3f}, graph {ag:.3f}")


if __name__ == "__main__":
    main()
