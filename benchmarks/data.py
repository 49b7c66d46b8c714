"""Data-pipeline benchmark: one epoch of Fashion-MNIST train, batch 256, images/s.

    .venv/bin/python benchmarks/data.py           # tandem + torch 2.13 (peers venv)
    .venv/bin/python benchmarks/data.py --quick   # a few batches, tandem only

Two pipelines: (a) ToTensor only, (b) Resize(224) + ToTensor (uint8 bilinear resize, then
float32 / 255). tandem: vision.datasets.FashionMNIST + utils.data.DataLoader, whose
transforms run as C++ transforms on THREADS worker threads. torch: DataLoader over a
TensorDataset of the same uint8 images whose __getitem__ applies the same transforms with
torch ops (F.interpolate, round, clamp, /255), THREADS worker processes. Both shuffle.
The epoch includes starting the workers; reading the IDX files is excluded.
"""
from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _common import THREADS, machine, run_peer  # noqa: E402

FMNIST = "/usr/share/datasets/fashion-mnist"
BATCH = 256
PIPELINES = ["totensor", "resize224"]


def epoch_rate(loader, max_batches: int) -> float:
    """Images per second over one pass (or its first max_batches batches)."""
    n = 0
    t = time.perf_counter()
    for i, (x, _) in enumerate(loader):
        n += x.shape[0]
        if i + 1 == max_batches:
            break
    return n / (time.perf_counter() - t)


def run_tandem(pipeline: str, max_batches: int) -> float:
    import tandem
    from tandem.utils.data import DataLoader
    from tandem.vision import datasets, transforms as T
    tandem.set_num_threads(THREADS)
    tandem.manual_seed(0)
    tf = T.ToTensor() if pipeline == "totensor" else T.Compose([T.Resize(224), T.ToTensor()])
    ds = datasets.FashionMNIST(FMNIST, train=True, transform=tf)
    dl = DataLoader(ds, batch_size=BATCH, shuffle=True, num_workers=THREADS)
    return epoch_rate(dl, max_batches)


def run_torch(pipeline: str, max_batches: int) -> float:
    import gzip

    import numpy as np
    import torch
    import torch.nn.functional as F
    from torch.utils.data import DataLoader, TensorDataset
    torch.set_num_threads(THREADS)
    torch.manual_seed(0)
    with gzip.open(f"{FMNIST}/train-images-idx3-ubyte.gz") as f:
        images = np.frombuffer(f.read(), np.uint8, offset=16).reshape(-1, 28, 28)
    with gzip.open(f"{FMNIST}/train-labels-idx1-ubyte.gz") as f:
        labels = np.frombuffer(f.read(), np.uint8, offset=8).astype(np.int64)

    def to_tensor(img):
        return img[None].float().div_(255)

    def resize_to_tensor(img):
        y = F.interpolate(img[None, None].float(), size=(224, 224), mode="bilinear",
                          align_corners=False)
        return to_tensor(y[0, 0].round_().clamp_(0, 255).to(torch.uint8))

    class Transformed(TensorDataset):
        def __init__(self, tf, *tensors):
            super().__init__(*tensors)
            self.tf = tf

        def __getitem__(self, i):
            img, label = super().__getitem__(i)
            return self.tf(img), label

    tf = to_tensor if pipeline == "totensor" else resize_to_tensor
    ds = Transformed(tf, torch.from_numpy(images.copy()), torch.from_numpy(labels))
    dl = DataLoader(ds, batch_size=BATCH, shuffle=True, num_workers=THREADS)
    return epoch_rate(dl, max_batches)


def measure(lib: str, max_batches: int) -> dict:
    fn = run_tandem if lib == "tandem" else run_torch
    return {p: fn(p, max_batches) for p in PIPELINES}


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--worker")
    ap.add_argument("--quick", action="store_true")
    args = ap.parse_args()
    max_batches = 8 if args.quick else -1
    if args.worker:
        print(json.dumps(measure(args.worker, max_batches)))
        return
    if not Path(FMNIST).is_dir():
        sys.exit(f"data benchmark: {FMNIST} is missing (apt-get install dataset-fashion-mnist)")
    rows = {"tandem": measure("tandem", max_batches)}
    if not args.quick:
        rows["torch 2.13"] = run_peer(Path(__file__).resolve(), "torch", timeout=1200)
    what = f"first {max_batches} batches" if args.quick else "one epoch (60000 images)"
    print(f"# data ({machine()}; Fashion-MNIST train, {what}, batch {BATCH}, "
          f"{THREADS} workers)\n")
    print("| pipeline (images/s) | " + " | ".join(rows) + " |")
    print("|---|" + "---|" * len(rows))
    for p, label in zip(PIPELINES, ["ToTensor", "Resize(224) + ToTensor"]):
        cells = [r["error"] if "error" in r else f"{r[p]:,.0f}" for r in rows.values()]
        print(f"| {label} | " + " | ".join(cells) + " |")
    if not args.quick:
        out = Path(__file__).resolve().parent / "results"
        out.mkdir(exist_ok=True)
        (out / "data.json").write_text(json.dumps({"machine": machine(), "rows": rows}, indent=1))


if __name__ == "__main__":
    main()
