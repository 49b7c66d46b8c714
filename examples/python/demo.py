"""tandem demo: the seed document's examples, then the D2L book's LeNet trained on
Fashion-MNIST twice from the same seed: eager (PyNative) mode, then GRAPH_MODE with the
very same training step compiled into one graph by @jit (forward, loss, loss.backward()
and the optimizer update). Each epoch shows a live progress bar; each mode writes a PNG of train
loss / train acc / test acc per epoch (like the book's Animator).

    .venv/bin/python examples/python/demo.py [--epochs N] [--limit N] [--plot-dir DIR]
    .venv/bin/python examples/python/demo.py --quick     # a few batches per mode (CI)
    .venv/bin/python examples/python/demo.py --modern    # ReLU + max-pool + BatchNorm
    .venv/bin/python examples/python/demo.py --modern --only graph --export lenet.tdm
        # then, with no Python: build/classify_fashion_mnist lenet.tdm
"""
import argparse
import os
import sys

import tandem
from tandem import jit, mint
from tandem.mint import nn

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "d2l"))
import common as d2l  # noqa: E402  (the book's helpers: data, progress bar, plots, train)


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


def modern_lenet() -> nn.Module:
    """LeNet as one would write it today: ReLU, max-pooling and BatchNorm."""
    return nn.Sequential(
        nn.Conv2d(1, 6, kernel_size=5, padding=2), nn.BatchNorm2d(6), nn.ReLU(),
        nn.MaxPool2d(kernel_size=2, stride=2),
        nn.Conv2d(6, 16, kernel_size=5), nn.BatchNorm2d(16), nn.ReLU(),
        nn.MaxPool2d(kernel_size=2, stride=2),
        nn.Flatten(),
        nn.Linear(16 * 5 * 5, 120), nn.BatchNorm1d(120), nn.ReLU(),
        nn.Linear(120, 84), nn.BatchNorm1d(84), nn.ReLU(),
        nn.Linear(84, 10))


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--epochs", type=int, default=10)
    ap.add_argument("--limit", type=int, default=0, help="train on the first N images")
    ap.add_argument("--lr", type=float, default=None, help="default 0.9 (0.1 with --modern)")
    ap.add_argument("--batch-size", type=int, default=256)
    ap.add_argument("--quick", action="store_true",
                    help="a few batches per mode on a small test subset (CI smoke run)")
    ap.add_argument("--modern", action="store_true",
                    help="ReLU + max-pool + BatchNorm LeNet instead of the book's")
    ap.add_argument("--plot-dir", default=".", help="where lenet_{eager,graph}.png go")
    ap.add_argument("--no-progress", action="store_true", help="no live progress bar")
    ap.add_argument("--only", choices=("eager", "graph"), default=None,
                    help="train in one mode only")
    ap.add_argument("--export", default=None, metavar="PATH",
                    help="export the trained network to PATH (.tdm, dynamic batch) for the C++ "
                         "runtime, and its predictions for the first 1000 test images to "
                         "PATH.check.npy")
    args = ap.parse_args()
    test_limit = 0
    if args.quick:
        args.epochs, args.limit, test_limit = 1, args.limit or 768, 1024
    lr = args.lr = args.lr if args.lr is not None else (0.1 if args.modern else 0.9)

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

    d2l.check_data()
    name = "modern LeNet (ReLU, max-pool, BatchNorm)" if args.modern else "LeNet"
    results = {}
    for mode, d2l_mode in (("eager", "pynative"), ("graph", "graph")):
        if args.only and mode != args.only:
            continue
        print(f"\n== {name} on Fashion-MNIST, {mode} mode ==", flush=True)
        tandem.manual_seed(0)
        train_iter, test_iter = d2l.load_data_fashion_mnist(args.batch_size, None,
                                                            args.limit, test_limit)
        tandem.manual_seed(1)
        net = modern_lenet() if args.modern else lenet()
        # the same model code in both modes; d2l.train switches GRAPH_MODE on for "graph"
        # and compiles forward + value_and_grad + the SGD update into one @jit step
        args.plot = os.path.join(args.plot_dir, f"lenet_{mode}.png")
        results[mode] = d2l.train(net, train_iter, test_iter, args.epochs, lr, d2l_mode,
                                  "sgd", args=args, name="lenet_modern" if args.modern
                                  else "lenet")
    if args.export:
        export_for_cpp(net, args.export)
    if len(results) < 2:
        return
    e, g = results["eager"], results["graph"]
    te, tg = e["sec_per_epoch"], g["sec_per_epoch"]
    ae, ag = e["test_acc"][-1], g["test_acc"][-1]
    print(f"\nseconds per epoch: eager {te:.2f}, graph {tg:.2f} (speed-up {te / tg:.2f}x); "
          f"test accuracy: eager {ae:.3f}, graph {ag:.3f}")
    print(f"plots: {e['plot']} and {g['plot']}")


def export_for_cpp(net, path: str) -> None:
    """Train in Python, export, run in C++ with no Python: the deployment path."""
    import numpy as np
    tandem.set_context(mode=tandem.PYNATIVE_MODE)
    net.eval()
    _, test_iter = d2l.load_data_fashion_mnist(1000, None, None, 1000, num_workers=0)
    X, _ = next(iter(test_iter))
    written = tandem.export(net, X[:1], file_name=path, file_format="MINDIR", dynamic=True)
    with tandem.no_grad():
        np.save(written + ".check.npy", net(X).argmax(dim=1).numpy().astype(np.int64))
    print(f"\nexported {written} ({os.path.getsize(written)} bytes); run it with no Python:\n"
          f"  build/classify_fashion_mnist {written}\n  build/tandem-run {written} --bench 100")


if __name__ == "__main__":
    main()
