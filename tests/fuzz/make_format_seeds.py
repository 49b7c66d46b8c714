"""Writes seed inputs for the safetensors and IDX fuzz targets (tests/fuzz/fuzz_*.cpp):
checkpoints of every dtype, 0-d, empty and multi-tensor files with metadata, and IDX files of
each element type, raw and gzip-compressed.

    python tests/fuzz/make_format_seeds.py safetensors OUT_DIR
    python tests/fuzz/make_format_seeds.py idx OUT_DIR
"""
import gzip
import os
import struct
import sys

import numpy as np


def safetensors_seeds(out):
    from tandem import mint

    i = mint.tensor
    files = {
        "floats": {"a": mint.randn(2, 3), "b": mint.randn(4, dtype=mint.float64)},
        "halves": {"h": mint.ones(3, dtype=mint.float16),
                   "bf": mint.ones(2, 2, dtype=mint.bfloat16)},
        "ints": {"i8": i([1, -2], dtype=mint.int8), "u8": i([3], dtype=mint.uint8),
                 "i16": i([5], dtype=mint.int16), "i32": i([6, 7], dtype=mint.int32),
                 "i64": i([[8]], dtype=mint.int64), "b": i([True, False])},
        "scalar_empty": {"s": i(1.5), "e": mint.zeros(0, 3)},
        "strided": {"t": mint.arange(6.0).reshape(2, 3).t()},
    }
    for name, tensors in files.items():
        mint.save(tensors, os.path.join(out, name + ".safetensors"))
    # a state dict with nested names and a module's metadata
    net = mint.nn.Linear(3, 2)
    mint.save(net.state_dict(), os.path.join(out, "linear.safetensors"))


def idx_seeds(out):
    codes = {np.uint8: 0x08, np.int8: 0x09, np.dtype(">i2"): 0x0B, np.dtype(">i4"): 0x0C,
             np.dtype(">f4"): 0x0D, np.dtype(">f8"): 0x0E}
    rng = np.random.default_rng(0)
    for i, (dt, code) in enumerate(codes.items()):
        for shape in [(3,), (2, 2, 2), (1, 3, 2, 1)]:
            data = (rng.random(shape) * 100).astype(dt)
            raw = struct.pack(">BBBB", 0, 0, code, len(shape)) + \
                struct.pack(">" + "I" * len(shape), *shape) + data.tobytes()
            name = f"t{code:02x}_{len(shape)}d"
            with open(os.path.join(out, name + ".idx"), "wb") as f:
                f.write(raw)
            with open(os.path.join(out, name + ".idx.gz"), "wb") as f:
                f.write(gzip.compress(raw))


def main(kind, out):
    os.makedirs(out, exist_ok=True)
    {"safetensors": safetensors_seeds, "idx": idx_seeds}[kind](out)
    print(f"seeds: {len(os.listdir(out))} {kind} files in {out}")


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2])
