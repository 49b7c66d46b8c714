"""Deployment benchmarks: the C++ runtime against tandem @jit, onnxruntime on tandem's
exported ONNX file and torch eager, for the D2L LeNet (1x28x28) and ResNet-18 (1x96x96, the
book's Fashion-MNIST resize), batch 1 and 64, 1 and 2 threads; cold start of tandem-run vs
python + onnxruntime; library and model file sizes; peak memory of a batch-64 ResNet-18.

    .venv/bin/python benchmarks/deploy.py            # full run (~10 min on 2 cores)
    .venv/bin/python benchmarks/deploy.py --quick    # LeNet only, few reps

Latency reps are interleaved: each rep times one call of every runner in turn, so load on
this shared machine hits all of them alike; the table shows medians and ratios from the same
run. The C++ runtime is called through its Python binding (the GIL released, a few us of
call overhead) for the interleaving; the "tandem-run" column is the same runtime timed by
the CLI with no Python in the process. torch runs in its own process (benchmarks/.peers-venv,
torch 2.13 CPU) with the same weights, driven step by step over a pipe.
"""
from __future__ import annotations

import argparse
import json
import os
import re
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
BUILD = ROOT / os.environ.get("TANDEM_BUILD_DIR", "build")
TANDEM_RUN = BUILD / "tandem-run"
SHAPES = {"lenet": (1, 28, 28), "resnet18": (1, 96, 96)}

TORCH_MODELS = r'''
import torch
from torch import nn
from torch.nn import functional as F

def lenet():
    return nn.Sequential(
        nn.Conv2d(1, 6, kernel_size=5, padding=2), nn.Sigmoid(),
        nn.AvgPool2d(kernel_size=2, stride=2),
        nn.Conv2d(6, 16, kernel_size=5), nn.Sigmoid(),
        nn.AvgPool2d(kernel_size=2, stride=2), nn.Flatten(),
        nn.Linear(16 * 5 * 5, 120), nn.Sigmoid(), nn.Linear(120, 84), nn.Sigmoid(),
        nn.Linear(84, 10))

class Residual(nn.Module):
    def __init__(self, input_channels, num_channels, use_1x1conv=False, strides=1):
        super().__init__()
        self.conv1 = nn.Conv2d(input_channels, num_channels, kernel_size=3, padding=1, stride=strides)
        self.conv2 = nn.Conv2d(num_channels, num_channels, kernel_size=3, padding=1)
        self.conv3 = nn.Conv2d(input_channels, num_channels, kernel_size=1, stride=strides) if use_1x1conv else None
        self.bn1 = nn.BatchNorm2d(num_channels)
        self.bn2 = nn.BatchNorm2d(num_channels)
    def forward(self, X):
        Y = F.relu(self.bn1(self.conv1(X)))
        Y = self.bn2(self.conv2(Y))
        if self.conv3:
            X = self.conv3(X)
        Y += X
        return F.relu(Y)

def resnet_block(input_channels, num_channels, num_residuals, first_block=False):
    return [Residual(input_channels, num_channels, use_1x1conv=True, strides=2)
            if i == 0 and not first_block else Residual(num_channels, num_channels)
            for i in range(num_residuals)]

def resnet18():
    b1 = nn.Sequential(nn.Conv2d(1, 64, kernel_size=7, stride=2, padding=3), nn.BatchNorm2d(64),
                       nn.ReLU(), nn.MaxPool2d(kernel_size=3, stride=2, padding=1))
    return nn.Sequential(b1, nn.Sequential(*resnet_block(64, 64, 2, first_block=True)),
                         nn.Sequential(*resnet_block(64, 128, 2)),
                         nn.Sequential(*resnet_block(128, 256, 2)),
                         nn.Sequential(*resnet_block(256, 512, 2)),
                         nn.AdaptiveAvgPool2d((1, 1)), nn.Flatten(), nn.Linear(512, 10))
'''


# --- the torch worker (runs in the peers venv) --------------------------------------------------
def torch_worker() -> None:
    import numpy as np
    import torch
    ns = {}
    exec(TORCH_MODELS, ns)
    torch.set_grad_enabled(False)
    nets = {}
    for line in sys.stdin:
        cmd = json.loads(line)
        if cmd["op"] == "load":
            net = ns[cmd["model"]]().eval()
            w = np.load(cmd["weights"])
            net.load_state_dict({k: torch.from_numpy(w[k]) for k in w.files}, strict=True)
            nets[cmd["model"]] = net
            out = {"ok": torch.__version__}
        elif cmd["op"] == "run":
            torch.set_num_threads(cmd["threads"])
            x = torch.from_numpy(np.load(cmd["input"]))
            net = nets[cmd["model"]]
            for _ in range(cmd.get("warmup", 0)):
                net(x)
            t = time.perf_counter()
            y = net(x)
            out = {"s": time.perf_counter() - t}
            if cmd.get("save"):
                np.save(cmd["save"], y.numpy())
        print(json.dumps(out), flush=True)


class TorchPeer:
    def __init__(self):
        py = HERE / ".peers-venv" / "bin" / "python"
        if not py.exists():
            subprocess.run(["bash", str(HERE / "setup_peers.sh")], capture_output=True)
        env = dict(os.environ)
        env.pop("PYTHONPATH", None)
        self.p = subprocess.Popen([str(py), __file__, "--torch-worker"], stdin=subprocess.PIPE,
                                  stdout=subprocess.PIPE, text=True, env=env)

    def call(self, **cmd):
        self.p.stdin.write(json.dumps(cmd) + "\n")
        self.p.stdin.flush()
        line = self.p.stdout.readline()
        if not line:
            raise RuntimeError("torch worker died")
        return json.loads(line)

    def close(self):
        self.p.stdin.close()
        self.p.wait(timeout=30)


# --- helpers -------------------------------------------------------------------------------------
def build_nets(tmp: Path):
    """The two tandem nets (eval mode, seeded), their .tdm / .onnx files and weights."""
    import numpy as np
    import tandem
    from tandem import mint
    sys.path.insert(0, str(ROOT / "examples" / "python" / "d2l"))
    import lenet
    import resnet
    out = {}
    for name, make in (("lenet", lenet.lenet), ("resnet18", resnet.resnet18)):
        tandem.manual_seed(0)
        net = make()
        net.eval()
        x = mint.randn(2, *SHAPES[name])
        with tandem.no_grad():
            net(x)
        rng = np.random.default_rng(1)  # batch-norm statistics that make folding matter
        for m in net.modules():
            if getattr(m, "running_mean", None) is not None:
                c = m.running_mean.shape[0]
                m.running_mean.copy_(mint.tensor(rng.normal(0, 0.1, c).astype(np.float32)))
                m.running_var.copy_(mint.tensor(rng.uniform(0.5, 2, c).astype(np.float32)))
        state = {k: v.numpy() for k, v in net.state_dict().items()}
        np.savez(tmp / f"{name}.npz", **state)
        tandem._C.save_safetensors(str(tmp / f"{name}.safetensors"),
                                   [(k, v) for k, v in net.state_dict().items()], {})
        tdm = tandem.export(net, x, file_name=str(tmp / name), dynamic=True)
        onnx = tandem.export(net, x, file_name=str(tmp / name), file_format="ONNX", dynamic=True)
        out[name] = dict(net=net, tdm=tdm, onnx=onnx, npz=str(tmp / f"{name}.npz"),
                         safetensors=str(tmp / f"{name}.safetensors"))
    return out


def ort_session(path, threads):
    import onnxruntime as ort
    so = ort.SessionOptions()
    so.intra_op_num_threads = threads
    so.inter_op_num_threads = 1
    so.execution_mode = ort.ExecutionMode.ORT_SEQUENTIAL
    return ort.InferenceSession(path, so, providers=["CPUExecutionProvider"])


def tandem_run_bench(tdm, batch, threads, reps):
    r = subprocess.run([str(TANDEM_RUN), tdm, "--batch", str(batch), "--threads", str(threads),
                        "--bench", str(reps)], capture_output=True, text=True, timeout=600)
    m = re.search(r"median ([0-9.]+) ms", r.stdout)
    return float(m.group(1)) if m else float("nan")


def reps_for(name, batch, reps):
    """Interleaved reps per configuration: many for the quick ones, whose medians the
    machine's bursts of load move most."""
    if reps:
        return reps
    return {("lenet", 1): 300, ("lenet", 64): 100, ("resnet18", 1): 40}.get((name, batch), 10)


def latency(models, torch_peer, batches, threads_list, reps, tmp):
    import numpy as np
    import tandem
    from tandem import mint, jit
    rows = []
    for name, m in models.items():
        torch_ok = torch_peer and "ok" in torch_peer.call(op="load", model=name, weights=m["npz"])
        for batch in batches:
            x = mint.randn(batch, *SHAPES[name])
            xn = x.numpy()
            xpath = str(tmp / f"x_{name}_{batch}.npy")
            np.save(xpath, xn)
            n = reps_for(name, batch, reps)
            for threads in threads_list:
                tandem.set_num_threads(threads)
                rt = tandem._C.RuntimeModel(m["tdm"], threads)
                net = m["net"]
                f = jit(lambda t: net(t))
                sess = ort_session(m["onnx"], threads)
                with tandem.no_grad():
                    want = net(x).numpy()
                    runners = {
                        "runtime": lambda: rt.run([x]),
                        "@jit": lambda: f(x),
                        "onnxruntime": lambda: sess.run(None, {"input0": xn}),
                    }
                    for r in runners.values():  # warm up (plans, primitives, caches)
                        for _ in range(3):
                            r()
                    got = {"runtime": rt.run([x])[0].numpy(), "@jit": f(x).numpy(),
                           "onnxruntime": sess.run(None, {"input0": xn})[0]}
                    times = {k: [] for k in list(runners) + (["torch"] if torch_ok else [])}
                    if torch_ok:
                        torch_peer.call(op="run", model=name, input=xpath, threads=threads,
                                        warmup=3, save=str(tmp / "torch_out.npy"))
                        got["torch"] = np.load(tmp / "torch_out.npy")
                    for _ in range(n):
                        for k, r in runners.items():
                            t = time.perf_counter()
                            r()
                            times[k].append(time.perf_counter() - t)
                        if torch_ok:
                            times["torch"].append(torch_peer.call(
                                op="run", model=name, input=xpath, threads=threads)["s"])
                med = {k: statistics.median(v) * 1e3 for k, v in times.items()}
                med["tandem-run"] = tandem_run_bench(m["tdm"], batch, threads, n)
                scale = float(np.abs(want).max())
                err = {k: float(np.abs(v - want).max()) / scale for k, v in got.items()}
                rows.append(dict(model=name, batch=batch, threads=threads, ms=med, rel_err=err))
                print(json.dumps(rows[-1]), flush=True)
                rt = sess = None  # release the model and the session before the next
    return rows


def cold_start(models, tmp, reps):
    """Wall seconds from process start to the first result (batch 1)."""
    import numpy as np
    py = sys.executable
    out = {}
    for name, m in models.items():
        x = str(tmp / f"cold_{name}.npy")
        np.save(x, np.zeros((1, *SHAPES[name]), np.float32))
        cmds = {
            "tandem-run": [str(TANDEM_RUN), m["tdm"], "--input", x, "--threads", "1"],
            "python + onnxruntime": [py, "-c", "import numpy as np, onnxruntime as ort, sys; "
                                     "so = ort.SessionOptions(); so.intra_op_num_threads = 1; "
                                     "s = ort.InferenceSession(sys.argv[1], so, "
                                     "providers=['CPUExecutionProvider']); "
                                     "s.run(None, {'input0': np.load(sys.argv[2])})",
                                     m["onnx"], x],
            "python + tandem.load": [py, "-c", "import numpy as np, tandem, sys; "
                                     "tandem.load(sys.argv[1], num_threads=1)(np.load(sys.argv[2]))",
                                     m["tdm"], x],
        }
        env = dict(os.environ, PYTHONPATH=str(ROOT / "python"), TANDEM_BUILD_DIR=str(BUILD))
        times = {k: [] for k in cmds}
        for _ in range(reps):
            for k, c in cmds.items():
                t = time.perf_counter()
                r = subprocess.run(c, capture_output=True, env=env)
                times[k].append(time.perf_counter() - t)
                if r.returncode:
                    raise RuntimeError(f"{k} failed: {r.stderr.decode()[-300:]}")
        out[name] = {k: statistics.median(v) * 1e3 for k, v in times.items()}
        print(json.dumps({"cold_start_ms": {name: out[name]}}), flush=True)
    return out


def peak_rss_mb(cmd, env=None):
    """Peak resident memory of a child process in MB: its VmHWM (the high-water mark of the
    program's own address space, which exec starts afresh), read until it exits. (rusage's
    maxrss would count the benchmark's memory the child shares between fork and exec.)"""
    p = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, env=env)
    hwm = 0
    while p.poll() is None:
        try:
            with open(f"/proc/{p.pid}/status") as f:
                for line in f:
                    if line.startswith("VmHWM:"):
                        hwm = max(hwm, int(line.split()[1]))
        except OSError:
            pass
        time.sleep(0.002)
    if p.returncode != 0:
        raise RuntimeError(f"{cmd[:2]} failed: {p.stderr.read().decode()[-300:]}")
    return hwm / 1024


def memory(models, tmp):
    import numpy as np
    m = models["resnet18"]
    x = str(tmp / "mem_x.npy")
    np.save(x, np.zeros((64, *SHAPES["resnet18"]), np.float32))
    py = sys.executable
    ort_code = ("import numpy as np, onnxruntime as ort, sys; so = ort.SessionOptions(); "
                "so.intra_op_num_threads = 2; s = ort.InferenceSession(sys.argv[1], so, "
                "providers=['CPUExecutionProvider']); x = np.load(sys.argv[2]); "
                + "s.run(None, {'input0': x}); " * 2)
    base_code = "import numpy as np, onnxruntime as ort, sys; x = np.load(sys.argv[2])"
    out = {
        "tandem-run (whole process)": peak_rss_mb([str(TANDEM_RUN), m["tdm"], "--input", x,
                                                   "--bench", "1", "--threads", "2"]),
        "tandem-run on a batch-1 LeNet (baseline: libraries, no big model)": peak_rss_mb(
            [str(TANDEM_RUN), models["lenet"]["tdm"], "--threads", "2", "--batch", "1"])
        if "lenet" in models else float("nan"),
        "python + onnxruntime (whole process)": peak_rss_mb([py, "-c", ort_code, m["onnx"], x]),
        "python + numpy + onnxruntime imported, input loaded (baseline)":
            peak_rss_mb([py, "-c", base_code, m["onnx"], x]),
    }
    print(json.dumps({"peak_rss_mb": out}), flush=True)
    return out


def sizes(models):
    import onnxruntime
    lib = BUILD / "src" / "tandem" / "libtandem_runtime.so"
    deps = {}
    ldd = subprocess.run(["ldd", str(lib)], capture_output=True, text=True).stdout
    for line in ldd.splitlines():
        mm = re.match(r"\s*(\S+) => (\S+)", line)
        if mm and any(k in mm.group(1) for k in ("dnnl", "sleef", "gomp")):
            deps[mm.group(1)] = os.path.getsize(os.path.realpath(mm.group(2)))
    capi = Path(onnxruntime.__file__).parent / "capi"
    ort_libs = {p.name: p.stat().st_size for p in capi.glob("*.so*")}
    out = {"libtandem_runtime.so": lib.stat().st_size, "runtime deps": deps,
           "libtandem.so (training, for comparison)": (BUILD / "src/tandem/libtandem.so").stat().st_size,
           "tandem-run": TANDEM_RUN.stat().st_size, "onnxruntime libs": ort_libs, "models": {}}
    for name, m in models.items():
        out["models"][name] = {k: os.path.getsize(m[k]) for k in ("tdm", "onnx", "safetensors")}
    print(json.dumps({"sizes": out}), flush=True)
    return out


def table(rows) -> str:
    cols = ["runtime", "tandem-run", "@jit", "onnxruntime", "torch"]
    lines = ["| model | batch | threads | " + " | ".join(f"{c} ms" for c in cols) +
             " | runtime / ORT | @jit / runtime | torch / runtime |",
             "|" + "---|" * (3 + len(cols) + 3)]
    for r in rows:
        ms = r["ms"]
        cells = [f"{ms[c]:.3f}" if c in ms else "-" for c in cols]
        ratio = lambda a, b: f"{ms[a] / ms[b]:.2f}" if a in ms and b in ms else "-"  # noqa: E731
        lines.append(f"| {r['model']} | {r['batch']} | {r['threads']} | " + " | ".join(cells) +
                     f" | {ratio('runtime', 'onnxruntime')} | {ratio('@jit', 'runtime')} | "
                     f"{ratio('torch', 'runtime')} |")
    return "\n".join(lines)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--quick", action="store_true")
    ap.add_argument("--reps", type=int, default=0)
    ap.add_argument("--json", default=None, help="write all results here")
    ap.add_argument("--no-torch", action="store_true")
    ap.add_argument("--sections", default="latency,cold,sizes,memory",
                    help="comma-separated subset of latency,cold,sizes,memory")
    args = ap.parse_args()
    sections = set(args.sections.split(","))
    os.sched_setaffinity(0, sorted(os.sched_getaffinity(0))[:2])
    with tempfile.TemporaryDirectory() as d:
        tmp = Path(d)
        models = build_nets(tmp)
        if args.quick:
            models = {"lenet": models["lenet"]}
        res, rows = {"load_average_before": os.getloadavg()}, []
        if "latency" in sections:
            peer = None if args.no_torch else TorchPeer()
            try:
                reps = args.reps or (5 if args.quick else 0)
                rows = res["latency"] = latency(models, peer, [1, 64], [1, 2], reps, tmp)
            finally:
                if peer:
                    peer.close()
        if "cold" in sections:
            res["cold_start_ms"] = cold_start(models, tmp, 3 if args.quick else 7)
        if "sizes" in sections:
            res["sizes"] = sizes(models)
        if "memory" in sections and "resnet18" in models:
            res["peak_rss_mb"] = memory(models, tmp)
        res["load_average_after"] = os.getloadavg()
    print(f"\nload average {res['load_average_before']} -> {res['load_average_after']}")
    if rows:
        print(table(rows))
    if args.json:
        Path(args.json).write_text(json.dumps(res, indent=1))


if __name__ == "__main__":
    if "--torch-worker" in sys.argv:
        torch_worker()
    else:
        sys.path.insert(0, str(ROOT / "python"))
        main()
