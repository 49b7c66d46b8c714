"""The D2L book's helpers (``d2l.load_data_fashion_mnist``, ``d2l.accuracy``,
``d2l.train_ch6``, the Animator) written against tandem's mint API.

Every chapter script in this folder does ``import common as d2l`` and trains with
``d2l.train(net, train_iter, test_iter, ...)``. The same model code runs in two modes:

* ``--mode pynative``: the book's loop, ``loss.backward()`` then ``optimizer.step()`` with
  ``mint.optim``;
* ``--mode graph``: ``tandem.set_context(mode=tandem.GRAPH_MODE)`` (Cells compile their
  forward, used for evaluation) and the same training step compiled by ``@jit`` into one
  graph: forward, loss, ``loss.backward()`` and the ``mint.optim`` update.

Each run prints a live progress bar per epoch, writes a PNG like the book's Animator, ends
with ``summary: ...`` and a machine-readable ``RESULT {json}`` line.

``--distributed`` (either mode; in graph mode the bucket all_reduces are nodes of the
compiled step) trains data-parallel over the ranks of an MPI job
(``python -m tandem.run -n 2 lenet.py --distributed`` or ``mpirun -n 2 python lenet.py
--distributed``): each rank reads its ``DistributedSampler`` share of the training set in
batches of ``--batch-size`` (the global batch is ranks x batch size), the model is wrapped
in ``mint.nn.parallel.DistributedDataParallel``, the metrics and the test accuracy are
summed over the ranks, and only rank 0 prints and writes the plot.
"""
from __future__ import annotations

import argparse
import json
import os
import sys
import time
from typing import Callable, Dict, List, Optional

import tandem
from tandem import jit, mint
from tandem.d2l.plotting import in_notebook
from tandem.mint import nn
from tandem.utils.data import DataLoader, Subset, TensorDataset
from tandem.vision import datasets, transforms

MODES = ("pynative", "graph")


# --- command line ----------------------------------------------------------------------------
def parser(description: str, *, epochs: int, lr: float, batch_size: int,
           resize: Optional[int] = None) -> argparse.ArgumentParser:
    """The options every chapter script takes, with the book's settings as defaults."""
    ap = argparse.ArgumentParser(description=description)
    ap.add_argument("--mode", choices=MODES, default="pynative",
                    help="pynative (eager) or graph (GRAPH_MODE + a @jit training step)")
    ap.add_argument("--epochs", type=int, default=epochs)
    ap.add_argument("--batch-size", type=int, default=batch_size)
    ap.add_argument("--lr", type=float, default=lr)
    ap.add_argument("--limit", type=int, default=0, help="train on the first N examples")
    ap.add_argument("--test-limit", type=int, default=0,
                    help="evaluate on the first N test examples (default: all 10000)")
    ap.add_argument("--resize", type=int, default=resize,
                    help=f"input image size (book: {resize or 28})")
    ap.add_argument("--plot", default=None, help="PNG path (default: <model>_<mode>.png)")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--no-progress", action="store_true", help="no live progress bar")
    ap.add_argument("--distributed", action="store_true",
                    help="data-parallel over the mpirun ranks (DistributedDataParallel)")
    ap.add_argument("--amp", choices=("off", "bf16", "fp16"), default="off",
                    help="mixed precision: forward and loss under mint.autocast in bfloat16, "
                         "or float16 with a GradScaler (weights stay float32)")
    return ap


def setup(args) -> None:
    """Seeds tandem; the MindSpore mode switch itself happens in train() once lazy layers
    have their shapes."""
    tandem.manual_seed(args.seed)


# --- data ------------------------------------------------------------------------------------
def _fashion_mnist(resize: Optional[int]):
    """The (train, test) Fashion-MNIST datasets as float32 (1, r, r) images in [0, 1]."""
    trans = [transforms.ToTensor()]
    if resize:
        trans.insert(0, transforms.Resize(resize))
    trans = transforms.Compose(trans)
    return (datasets.FashionMNIST(train=True, transform=trans),
            datasets.FashionMNIST(train=False, transform=trans))


def load_data_fashion_mnist(batch_size: int, resize: Optional[int] = None,
                            limit: Optional[int] = None, test_limit: Optional[int] = None,
                            num_workers: int = 2):
    """(train_iter, test_iter) over Fashion-MNIST, images float32 (B, 1, r, r) in [0, 1]."""
    train, test = _fashion_mnist(resize)
    if limit:
        train = Subset(train, range(min(limit, len(train))))
    if test_limit:
        test = Subset(test, range(min(test_limit, len(test))))
    return (DataLoader(train, batch_size, shuffle=True, num_workers=num_workers),
            DataLoader(test, batch_size, shuffle=False, num_workers=num_workers))


def load_data_distributed(batch_size: int, resize: Optional[int] = None,
                          limit: Optional[int] = None, test_limit: Optional[int] = None,
                          seed: int = 0, num_workers: int = 2):
    """(train_iter, test_iter) for this rank of a data-parallel job: the training set through
    a DistributedSampler (reshuffled by set_epoch, the same number of batches on every rank),
    the test set split into disjoint strided shares (unpadded, so the summed accuracy counts
    every test image once)."""
    from tandem.mint import distributed as dist
    from tandem.utils.data.distributed import DistributedSampler
    train, test = _fashion_mnist(resize)
    if limit:
        train = Subset(train, range(min(limit, len(train))))
    n_test = min(test_limit, len(test)) if test_limit else len(test)
    test = Subset(test, range(dist.get_rank(), n_test, dist.get_world_size()))
    sampler = DistributedSampler(train, shuffle=True, seed=seed)
    return (DataLoader(train, batch_size, sampler=sampler, num_workers=num_workers),
            DataLoader(test, batch_size, shuffle=False, num_workers=num_workers))


def _sum_over_ranks(*values: float) -> List[float]:
    """The values summed over the ranks (the job's totals); unchanged in one process."""
    from tandem.mint import distributed as dist
    if not dist.is_initialized():
        return list(values)
    t = tandem.tensor([float(v) for v in values], dtype=tandem.float64)
    dist.all_reduce(t)
    return [float(v) for v in t.numpy()]


def _is_rank0() -> bool:
    from tandem.mint import distributed as dist
    return not dist.is_initialized() or dist.get_rank() == 0


def load_array(data_arrays, batch_size: int, is_train: bool = True,
               drop_last: bool = False) -> DataLoader:
    """The book's d2l.load_array: a DataLoader over in-memory tensors."""
    return DataLoader(TensorDataset(*data_arrays), batch_size, shuffle=is_train,
                      drop_last=drop_last)


def fashion_mnist_available() -> bool:
    try:
        datasets.FashionMNIST(train=False)
        return True
    except (ValueError, RuntimeError, OSError):
        return False


# --- metrics ---------------------------------------------------------------------------------
def accuracy(y_hat, y) -> float:
    """Number of correct predictions (the book's d2l.accuracy)."""
    if len(y_hat.shape) > 1 and y_hat.shape[1] > 1:
        y_hat = y_hat.argmax(dim=1)
    return float((y_hat.type(y.dtype) == y).sum())


def evaluate_accuracy(net, data_iter) -> float:
    net.eval()
    correct = total = 0
    with tandem.no_grad():
        for X, y in data_iter:
            correct += accuracy(net(X), y)
            total += y.shape[0]
    correct, total = _sum_over_ranks(correct, total)  # a data-parallel job: every rank's share
    return correct / max(total, 1)


def evaluate_loss(net, data_iter, loss_fn) -> float:
    net.eval()
    total = n = 0.0
    with tandem.no_grad():
        for X, y in data_iter:
            total += float(loss_fn(net(X), y)) * y.shape[0]
            n += y.shape[0]
    return total / max(n, 1)


# --- progress bar and plot -------------------------------------------------------------------
def _notebook_display():
    """A display handle in a Jupyter kernel, None elsewhere."""
    if not in_notebook():
        return None
    from IPython.display import display
    return display({"text/plain": ""}, raw=True, display_id=True)


def _tqdm_class(stream):
    """tqdm.auto's bar class where it draws one updating line: on a terminal, and in a Jupyter
    kernel when ipywidgets is there for its widget (without it tqdm.auto would write \\r
    chunks that a notebook shows as one line each). None where tqdm is not installed."""
    try:
        if in_notebook():
            import ipywidgets  # noqa: F401
        elif not getattr(stream, "isatty", lambda: False)():
            return None  # a log file or pipe: the plain bar's sparse lines read better
        from tqdm.auto import tqdm
    except ImportError:
        return None
    return tqdm


class ProgressBar:
    """One live line per epoch: ``epoch 3/10 [#####-----] 120/235 loss 0.512 acc 0.812
    1850 img/s ETA 6s``. With tqdm installed it is a tqdm.auto bar (a widget in notebooks with
    ipywidgets); otherwise the line is redrawn in place with \\r on stderr, or into one display
    output in a Jupyter kernel."""

    def __init__(self, epoch: int, num_epochs: int, num_batches: int, enabled: bool = True,
                 stream=sys.stderr):
        self.epoch, self.num_epochs, self.n = epoch, num_epochs, num_batches
        self.enabled, self.stream = enabled, stream
        self.t0 = time.perf_counter()
        self.last_draw = 0.0
        self.tqdm = None
        self.handle = None
        tqdm = _tqdm_class(stream) if enabled else None
        if tqdm is not None:
            self.tqdm = tqdm(total=num_batches, desc=f"epoch {epoch}/{num_epochs}", unit="batch",
                             leave=False, file=stream, dynamic_ncols=True)
            self.done = 0
            return
        # redraw often on a terminal, rarely into a log file or pipe
        self.every = 0.1 if getattr(stream, "isatty", lambda: False)() else 2.0
        # In a Jupyter kernel, \r chunks on stderr become one output line each: draw into a
        # single display output instead (and redraw as often as on a terminal).
        self.handle = _notebook_display() if enabled else None
        if self.handle is not None:
            self.every = 0.2

    def update(self, i: int, loss: float, acc: Optional[float], images: int,
               force: bool = False) -> None:
        if not self.enabled:
            return
        now = time.perf_counter()
        el = max(now - self.t0, 1e-9)
        acc_s = f" acc {acc:.3f}" if acc is not None else ""
        if self.tqdm is not None:  # tqdm paces its own redraws
            self.tqdm.set_postfix_str(f"loss {loss:.4f}{acc_s} {images / el:.0f} img/s",
                                      refresh=False)
            self.tqdm.update(i - self.done)
            self.done = i
            return
        if not force and now - self.last_draw < self.every and i < self.n:
            return
        self.last_draw = now
        width = 20
        done = int(width * i / max(self.n, 1))
        eta = el / max(i, 1) * (self.n - i)
        line = (f"epoch {self.epoch}/{self.num_epochs} [{'#' * done}{'-' * (width - done)}] "
                f"{i}/{self.n} loss {loss:.4f}{acc_s} {images / el:6.0f} img/s ETA {eta:4.0f}s")
        if self.handle is not None:  # a notebook: one output line, updated in place
            self.handle.update({"text/plain": line}, raw=True)
            return
        self.stream.write("\r" + line + " ")
        self.stream.flush()

    def close(self, text: str = "") -> None:
        if self.tqdm is not None:
            self.tqdm.close()  # leave=False: the bar goes, the epoch's summary line stays
            print(text, flush=True)
            return
        if self.handle is not None:
            self.handle.update({"text/plain": text}, raw=True)
            return
        if self.enabled:
            self.stream.write("\r\033[K" if self.stream.isatty() else "\n")
        print(text, flush=True)


def write_plot(path: str, history: Dict[str, List[float]], title: str) -> str:
    """A PNG like the book's Animator: one curve per metric over the epochs."""
    # A bare Figure renders to PNG through its own Agg canvas: pyplot's global backend is
    # left alone, so inline plots in a notebook keep working after training.
    from matplotlib.figure import Figure

    fig = Figure(figsize=(4.5, 3.2), dpi=100)
    ax = fig.subplots()
    styles = {"train loss": "b-", "train acc": "m--", "test acc": "g-.", "test loss": "r:"}
    for key, vals in history.items():
        if vals:
            ax.plot(range(1, len(vals) + 1), vals, styles.get(key, "-"), label=key)
    ax.set_xlabel("epoch")
    ax.set_xlim(1, max(2, max(len(v) for v in history.values())))
    ax.grid(True)
    ax.legend()
    ax.set_title(title, fontsize=9)
    fig.tight_layout()
    d = os.path.dirname(os.path.abspath(path))
    os.makedirs(d, exist_ok=True)
    fig.savefig(path)
    return path


# --- the training step, one per mode ---------------------------------------------------------
def make_optimizer(params, kind: str, lr: float, weight_decay: float = 0.0):
    """The book's optimizer, from mint.optim (PyTorch names), in both modes: graph mode
    compiles the very same step (see make_train_step)."""
    params = list(params)
    if kind == "sgd":
        return mint.optim.SGD(params, lr=lr, weight_decay=weight_decay)
    if kind == "adam":
        return mint.optim.Adam(params, lr=lr, weight_decay=weight_decay)
    raise ValueError(f"optimizer must be 'sgd' or 'adam', got {kind!r}")


AMP_DTYPES = {"bf16": mint.bfloat16, "fp16": mint.float16}


def autocast(amp: str = "off"):
    """mint.autocast for --amp (a disabled one for "off")."""
    return mint.autocast("cpu", dtype=AMP_DTYPES.get(amp, mint.bfloat16), enabled=amp != "off")


def make_train_step(net, loss_fn: Callable, opt, mode: str, amp: str = "off"):
    """step(X, y) -> (loss, y_hat) doing one update of net's parameters: the book's code;
    in graph mode the same function compiled by @jit into one graph (forward, backward and
    the optimizer update run in C++; .grad is set on the parameters after each call).
    amp "bf16" / "fp16": the forward and the loss run under autocast, as PyTorch's AMP
    recipe writes it (fp16 with a GradScaler, whose state the compiled step captures)."""
    scaler = mint.amp.GradScaler("cpu") if amp == "fp16" else None

    def step(X, y):
        with autocast(amp):
            y_hat = net(X)
            loss = loss_fn(y_hat, y)
        opt.zero_grad()
        if scaler is None:
            loss.backward()
            opt.step()
        else:
            scaler.scale(loss).backward()
            scaler.step(opt)
            scaler.update()
        return loss, y_hat

    return jit(step) if mode == "graph" else step


def init_lazy(net, shape) -> None:
    """Runs one eval-mode forward on zeros of `shape` so lazy layers get their sizes (the
    book does ``net(X)`` to print the shapes). Runs before the graph-mode switch."""
    was = net.training
    net.eval()
    with tandem.no_grad():
        net(mint.zeros(*shape))
    net.train(was)


def xavier_init(m) -> None:
    """The book's train_ch6 initialisation."""
    if type(m) in (nn.Linear, nn.Conv2d):
        nn.init.xavier_uniform_(m.weight)


# --- the training loops ----------------------------------------------------------------------
class Run:
    """Collects per-epoch metrics, draws the progress bar, writes the plot and the summary."""

    def __init__(self, name: str, mode: str, args, metrics=("train loss", "train acc",
                                                              "test acc")):
        self.name, self.mode, self.args = name, mode, args
        self.history: Dict[str, List[float]] = {m: [] for m in metrics}
        self.epoch_times: List[float] = []
        self.cpu_times: List[float] = []  # process CPU seconds: robust on a shared machine
        self.t_start = time.perf_counter()

    def sec_per_epoch(self) -> float:
        """Median epoch time (the first graph-mode epoch also pays for compilation)."""
        t = sorted(self.epoch_times)
        return t[len(t) // 2] if t else float("nan")

    def finish(self, **extra) -> Dict:
        # args is None when the loops are called from a notebook rather than main()
        plot = getattr(self.args, "plot", None) or f"{self.name}_{self.mode}.png"
        title = (f"{self.name} ({self.mode}), "
                 + ", ".join(f"{k} {v[-1]:.3f}" for k, v in self.history.items() if v))
        write_plot(plot, self.history, title)
        res = {"model": self.name, "mode": self.mode, "epochs": len(self.epoch_times),
               "sec_per_epoch": round(self.sec_per_epoch(), 3),
               "epoch_times": [round(t, 3) for t in self.epoch_times],
               "cpu_sec_per_epoch": round(sorted(self.cpu_times)[len(self.cpu_times) // 2], 3)
               if self.cpu_times else None,
               "total_sec": round(time.perf_counter() - self.t_start, 2),
               "batch_size": getattr(self.args, "batch_size", None),
               "lr": getattr(self.args, "lr", None),
               "resize": getattr(self.args, "resize", None),
               "limit": getattr(self.args, "limit", 0) or None,
               "amp": getattr(self.args, "amp", "off"),
               "plot": os.path.abspath(plot)}
        res.update({k.replace(" ", "_"): [round(x, 5) for x in v]
                    for k, v in self.history.items()})
        res.update(extra)
        shown = " ".join(f"{k}={v:.3f}" if isinstance(v, float) else f"{k}={v}"
                         for k, v in extra.items())
        last = {k: v[-1] for k, v in self.history.items() if v}
        main = (f"test_acc={last['test acc']:.3f} " if "test acc" in last else "")
        print(f"summary: model={self.name} mode={self.mode} {main}"
              f"train_loss={last.get('train loss', float('nan')):.4f} "
              f"sec_per_epoch={self.sec_per_epoch():.3f} {shown}".rstrip()
              + f" plot={res['plot']}", flush=True)
        print("RESULT " + json.dumps(res), flush=True)
        return res


def _enter_mode(mode: str) -> None:
    tandem.set_context(mode=tandem.GRAPH_MODE if mode == "graph" else tandem.PYNATIVE_MODE)


def train(net, train_iter, test_iter, num_epochs: int, lr: float, mode: str = "pynative",
          optimizer: str = "sgd", *, args=None, name: str = "model", loss=None,
          input_shape=None, init: Optional[Callable] = xavier_init,
          weight_decay: float = 0.0) -> Dict:
    """The book's train_ch6 for classifiers; returns the RESULT dict.

    input_shape: a sample batch shape for lazy layers (e.g. (1, 1, 28, 28)); init: applied
    to every module afterwards (None keeps the layers' own initialisation)."""
    if input_shape is not None:
        init_lazy(net, input_shape)
    if init is not None:
        net.apply(init)
    from tandem.mint import distributed as dist
    if dist.is_initialized():  # every rank starts from rank 0's weights; gradients averaged
        net = nn.parallel.DistributedDataParallel(net)
    loss_fn = loss or nn.CrossEntropyLoss()
    opt = make_optimizer(net.parameters(), optimizer, lr, weight_decay)
    _enter_mode(mode)  # the MindSpore switch: Cells now compile their forward in GRAPH_MODE
    amp = getattr(args, "amp", "off") if args is not None else "off"
    step = make_train_step(net, loss_fn, opt, mode, amp)
    run = Run(name, mode, args)
    show = not (args is not None and getattr(args, "no_progress", False)) and _is_rank0()
    try:
        for epoch in range(num_epochs):
            net.train()
            if hasattr(getattr(train_iter, "sampler", None), "set_epoch"):
                train_iter.sampler.set_epoch(epoch)  # a new shuffle, the same on every rank
            bar = ProgressBar(epoch + 1, num_epochs, len(train_iter), show)
            t0, c0 = time.perf_counter(), time.process_time()
            loss_sum = correct = 0.0
            n = 0
            for i, (X, y) in enumerate(train_iter):
                l, y_hat = step(X, y)
                b = y.shape[0]
                loss_sum += float(l) * b
                correct += accuracy(y_hat, y)
                n += b
                bar.update(i + 1, loss_sum / n, correct / n, n)
            run.epoch_times.append(time.perf_counter() - t0)
            run.cpu_times.append(time.process_time() - c0)
            loss_sum, correct, n = _sum_over_ranks(loss_sum, correct, n)
            with autocast(amp):
                test_acc = evaluate_accuracy(net, test_iter)
            for k, v in (("train loss", loss_sum / n), ("train acc", correct / n),
                         ("test acc", test_acc)):
                run.history[k].append(v)
            if _is_rank0():
                bar.close(f"epoch {epoch + 1}/{num_epochs}: loss {loss_sum / n:.3f}, train "
                          f"acc {correct / n:.3f}, test acc {test_acc:.3f}, "
                          f"{run.epoch_times[-1]:.1f} s ({n / run.epoch_times[-1]:.0f} img/s)")
    finally:
        _enter_mode("pynative")
    if not _is_rank0():  # rank 0 reports and writes the plot for the job
        return {}
    return run.finish(**({"ranks": dist.get_world_size()} if dist.is_initialized() else {}))


def train_regression(net, train_iter, num_epochs: int, lr: float, mode: str = "pynative",
                     optimizer: str = "sgd", *, args=None, name: str = "model", loss=None,
                     eval_fn: Optional[Callable[[], Dict[str, float]]] = None) -> Run:
    """The chapter-3 loop for regressions (no accuracy): train loss per epoch and, if given,
    eval_fn() -> {'test loss': ...} metrics. Returns the Run (call .finish(**extra))."""
    loss_fn = loss or nn.MSELoss()
    opt = make_optimizer(net.parameters(), optimizer, lr)
    _enter_mode(mode)
    step = make_train_step(net, loss_fn, opt, mode)
    metrics = ("train loss", "test loss") if eval_fn else ("train loss",)
    run = Run(name, mode, args, metrics)
    show = not (args is not None and getattr(args, "no_progress", False))
    try:
        for epoch in range(num_epochs):
            net.train()
            bar = ProgressBar(epoch + 1, num_epochs, len(train_iter), show)
            t0, c0 = time.perf_counter(), time.process_time()
            loss_sum, n = 0.0, 0
            for i, (X, y) in enumerate(train_iter):
                l, _ = step(X, y)
                loss_sum += float(l) * y.shape[0]
                n += y.shape[0]
                bar.update(i + 1, loss_sum / n, None, n)
            run.epoch_times.append(time.perf_counter() - t0)
            run.cpu_times.append(time.process_time() - c0)
            run.history["train loss"].append(loss_sum / n)
            msg = f"epoch {epoch + 1}/{num_epochs}: loss {loss_sum / n:.5f}"
            if eval_fn:
                ev = eval_fn()
                run.history["test loss"].append(ev["test loss"])
                msg += f", test loss {ev['test loss']:.5f}"
            bar.close(msg + f", {run.epoch_times[-1]:.2f} s")
    finally:
        _enter_mode("pynative")
    return run


def check_data() -> None:
    if not fashion_mnist_available():
        sys.exit("Fashion-MNIST not found: install it at /usr/share/datasets/fashion-mnist or "
                 "set TANDEM_FASHION_MNIST_DIR")


def classifier_main(name: str, build: Callable[[], "nn.Module"], *, description: str,
                    epochs: int, lr: float, batch_size: int, resize: Optional[int] = None,
                    optimizer: str = "sgd", init: Optional[Callable] = xavier_init) -> Dict:
    """Parses the common options, builds the model and trains it on Fashion-MNIST."""
    # a kernel's own argv (-f kernel.json) is not ours: a notebook gets the defaults
    args = parser(description, epochs=epochs, lr=lr, batch_size=batch_size,
                  resize=resize).parse_args([] if in_notebook() else None)
    check_data()
    setup(args)
    r = args.resize or 28
    if args.distributed:
        from tandem.mint import distributed as dist
        dist.init_process_group("mpi")
        train_iter, test_iter = load_data_distributed(args.batch_size, args.resize or None,
                                                      args.limit, args.test_limit, args.seed)
    else:
        train_iter, test_iter = load_data_fashion_mnist(args.batch_size, args.resize or None,
                                                        args.limit, args.test_limit)
    net = build()
    return train(net, train_iter, test_iter, args.epochs, args.lr, args.mode, optimizer,
                 args=args, name=name, input_shape=(2, 1, r, r), init=init)
