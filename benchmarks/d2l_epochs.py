"""Seconds per training epoch of the D2L book's chapter models, each framework with its own
DataLoader: tandem eager / @jit against torch eager / torch.compile.

    python benchmarks/d2l_epochs.py [--quick]      # prints the markdown section

Models (the book's settings; SGD, cross-entropy):
- softmax regression (3.7): Flatten + Linear(784, 10), Fashion-MNIST, batch 256;
- MLP (4.3): 784-256-10 with ReLU, batch 256;
- LeNet (6.6): the book's sigmoid LeNet with average pooling, batch 256;
- RNN / GRU / LSTM language models (9.6, 10.1, 10.3): The Time Machine, characters,
  hidden 256, 35 steps, batch 32, sequential partitioning (the book's own iterator, not a
  DataLoader).
Fashion-MNIST comes from Debian's dataset-fashion-mnist, The Time Machine from
../shared/data/d2l. An epoch is timed after 3 warm-up steps (so compilation is excluded;
run_all's compile-time row has it) and includes the DataLoader's batching and shuffling.
Every (framework, mode) runs in its own process, the processes alternating round by round
(the order reversed each round); a cell is the median over rounds. --quick: tandem only, a
tenth of Fashion-MNIST, one round. run_all appends this section.
"""
from __future__ import annotations

import argparse
import gzip
import json
import os
import statistics
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
from _common import PEERS_PY, peer_env, run_worker  # noqa: E402

ROOT = HERE.parent
FASHION = Path("/usr/share/datasets/fashion-mnist")


def time_machine_path() -> Path | None:
    """The Time Machine: $TANDEM_DATA, or ../shared/data/d2l next to the checkout (as the
    tests look); None on machines without it (the language-model rows then say so)."""
    dirs = [Path(os.environ["TANDEM_DATA"])] if os.environ.get("TANDEM_DATA") else []
    dirs += [ROOT.parent / "shared" / "data" / "d2l", ROOT.parent.parent / "shared" / "data" / "d2l"]
    return next((d / "timemachine.txt" for d in dirs if (d / "timemachine.txt").is_file()), None)

MODELS = [("softmax", "softmax regression (3.7), Fashion-MNIST, batch 256"),
          ("mlp", "MLP 784-256-10 (4.3), Fashion-MNIST, batch 256"),
          ("lenet", "LeNet (6.6), Fashion-MNIST, batch 256"),
          ("rnn", "RNN language model (9.6), The Time Machine, batch 32 x 35 steps"),
          ("gru", "GRU language model (10.1), The Time Machine, batch 32 x 35 steps"),
          ("lstm", "LSTM language model (10.3), The Time Machine, batch 32 x 35 steps")]
COLUMNS = [("tandem eager", "tandem", "eager"), ("tandem graph", "tandem", "graph"),
           ("torch eager", "torch", "eager"), ("torch.compile", "torch", "graph")]
LR = {"softmax": 0.1, "mlp": 0.1, "lenet": 0.9, "rnn": 1.0, "gru": 1.0, "lstm": 1.0}


def fashion_mnist(limit: int = 0):
    """Training images (N, 1, 28, 28) float32 in [0, 1] and labels int64, as numpy arrays."""
    import numpy as np
    with gzip.open(FASHION / "train-images-idx3-ubyte.gz") as f:
        X = np.frombuffer(f.read(), np.uint8, offset=16).reshape(-1, 1, 28, 28)
    with gzip.open(FASHION / "train-labels-idx1-ubyte.gz") as f:
        y = np.frombuffer(f.read(), np.uint8, offset=8).astype(np.int64)
    if limit:
        X, y = X[:limit], y[:limit]
    return (X.astype(np.float32) / 255), y


def time_machine():
    """The book's character corpus: lowercase letters and space (28 tokens with <unk>)."""
    import re
    import numpy as np
    text = re.sub("[^A-Za-z]+", " ", time_machine_path().read_text()).lower()
    vocab = sorted(set(text))
    idx = {c: i + 1 for i, c in enumerate(vocab)}  # 0: <unk>
    return np.array([idx[c] for c in text], np.int64), len(vocab) + 1


def lm_batches(corpus, batch: int, steps: int):
    """Sequential partitioning (D2L 8.3): (X, Y) index arrays of shape (batch, steps)."""
    n = (len(corpus) - 1) // batch * batch
    Xs, Ys = corpus[:n].reshape(batch, -1), corpus[1:n + 1].reshape(batch, -1)
    for i in range(0, (Xs.shape[1] // steps) * steps, steps):
        yield Xs[:, i:i + steps], Ys[:, i:i + steps]


def epoch(lib, compiled, model, T, nn, F, W, data, X, y) -> dict:
    """One timed epoch of `model` after 3 warm-up steps."""
    from workloads import RNN_SIZES
    W.LR = LR[model]
    if model in ("rnn", "gru", "lstm"):
        corpus, vocab = time_machine()
        assert vocab == RNN_SIZES[0], "the book's character vocabulary has 28 tokens"
        net = W.rnn_model(nn, model)
        step = W.train_step(lib, compiled, net, nn.CrossEntropyLoss())

        def batches():
            for xb, yb in lm_batches(corpus, 32, 35):
                xt = T.tensor(xb.T.copy())
                yield F.one_hot(xt, vocab).float(), T.tensor(yb.T.reshape(-1).copy())
    else:
        net = {"softmax": lambda: nn.Sequential(nn.Flatten(), nn.Linear(784, 10)),
               "mlp": lambda: nn.Sequential(nn.Flatten(), nn.Linear(784, 256), nn.ReLU(),
                                            nn.Linear(256, 10)),
               "lenet": lambda: W.lenet(nn)}[model]()
        step = W.train_step(lib, compiled, net, nn.CrossEntropyLoss())
        loader = data.DataLoader(data.TensorDataset(T.tensor(X), T.tensor(y)),
                                 batch_size=256, shuffle=True)

        def batches():
            yield from loader
    warm = batches()
    for _ in range(3):  # compiles (and the first call's allocations) happen here
        step(*next(warm))
    t0 = time.perf_counter()
    n = 0
    for xb, yb in batches():
        loss = step(xb, yb)
        n += 1
    float(loss.detach() if lib == "torch" else loss)
    return {"seconds": time.perf_counter() - t0, "batches": n}


def worker(lib: str, mode: str, limit: int) -> dict:
    """Seconds per epoch of every model for one framework and mode."""
    import workloads_torchlike as W
    T, mint, nn, F = W.framework(lib)
    T.manual_seed(0)
    compiled = mode == "graph"
    data = T.utils.data
    X, y = fashion_mnist(limit)
    out = {}
    for model, _ in MODELS:
        if model in ("rnn", "gru", "lstm") and time_machine_path() is None:
            out[model] = {"na": "The Time Machine not found ($TANDEM_DATA, ../shared/data/d2l)"}
            continue
        try:
            out[model] = epoch(lib, compiled, model, T, nn, F, W, data, X, y)
        except Exception as e:  # the other models still run
            out[model] = {"error": f"{type(e).__name__}: {e}"[:200]}
    return out


def _python_env(lib: str):
    if lib == "tandem":
        return Path(sys.executable), dict(os.environ, PYTHONPATH=str(ROOT / "python"))
    # torch: the peers venv run_all sets up, else this interpreter (the test venv has torch)
    return (PEERS_PY, peer_env()) if PEERS_PY.exists() else (Path(sys.executable), dict(
        os.environ))


def run(quick: bool, log=lambda msg: None) -> dict:
    """{'cells': {column: {model: seconds or {'error': ...}}}, ...}. Never imports tandem."""
    limit, rounds = (6000, 1) if quick else (0, 2)
    columns = [c for c in COLUMNS if not quick or c[1] == "tandem"]
    per = {c[0]: [] for c in columns}
    t0 = time.monotonic()
    for r in range(rounds):
        for name, lib, mode in (columns if r % 2 == 0 else columns[::-1]):
            log(f"{name}, round {r + 1}/{rounds}")
            py, env = _python_env(lib)
            per[name].append(run_worker(py, [__file__, "--worker", lib, mode, limit], env, 900,
                                        name))
    cells = {}
    for name, results in per.items():
        good = [res for res in results if "error" not in res]
        if not good:
            cells[name] = {m: {"error": results[0]["error"]} for m, _ in MODELS}
            continue
        cells[name] = {"_batches": {}}
        for m, _ in MODELS:
            runs = [res[m] for res in good]
            bad = next((v for v in runs if "seconds" not in v), None)
            if bad:
                cells[name][m] = bad
                continue
            cells[name][m] = statistics.median(v["seconds"] for v in runs)
            cells[name]["_batches"][m] = runs[0]["batches"]
    return {"cells": cells, "columns": [c[0] for c in columns], "quick": quick,
            "rounds": rounds, "minutes": (time.monotonic() - t0) / 60}


def markdown(data: dict) -> str:
    cols = data["columns"]
    lines = ["## D2L chapter models: seconds per epoch", "",
             f"`benchmarks/d2l_epochs.py{' --quick' if data['quick'] else ''}`: one training "
             "epoch of each chapter model with the framework's own DataLoader (Fashion-MNIST; "
             "The Time Machine through the book's sequential iterator), after 3 warm-up steps; "
             f"median over {data['rounds']} interleaved round(s), {data['minutes']:.1f} min. "
             "In parentheses: the ratio to tandem graph." +
             (" **--quick**: a tenth of Fashion-MNIST." if data["quick"] else ""), "",
             "| model | batches | " + " | ".join(cols) + " |",
             "|---|---|" + "---|" * len(cols)]
    base = data["cells"].get("tandem graph", {})
    for model, label in MODELS:
        batches = next((c["_batches"][model] for c in data["cells"].values()
                        if model in c.get("_batches", {})), "")
        row = [label, str(batches)]
        for c in cols:
            v = data["cells"].get(c, {}).get(model)
            if not isinstance(v, (int, float)):
                row.append(f"failed: {v['error'][:80]}" if isinstance(v, dict) and "error" in v
                           else f"n/a: {v['na']}" if isinstance(v, dict) else "")
                continue
            b = base.get(model)
            ratio = f" ({v / b:.2f}x)" if isinstance(b, (int, float)) and c != "tandem graph" else ""
            row.append(f"{v:.3g} s{ratio}")
        lines.append("| " + " | ".join(row) + " |")
    return "\n".join(lines) + "\n"


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawTextHelpFormatter)
    ap.add_argument("--quick", action="store_true", help="tandem only, 6,000 images, 1 round")
    ap.add_argument("--worker", nargs=3, metavar=("LIB", "MODE", "LIMIT"), help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.worker:
        lib, mode, limit = args.worker
        print(json.dumps(worker(lib, mode, int(limit))))
        return 0
    data = run(args.quick, log=lambda m: print(f"[d2l_epochs] {m}", file=sys.stderr, flush=True))
    print(markdown(data))
    failed = [c for c in data["cells"] if c.startswith("tandem") and any(
        isinstance(v, dict) and "error" in v for k, v in data["cells"][c].items()
        if not k.startswith("_"))]
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
