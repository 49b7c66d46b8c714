"""tandem model graph (the JSON of a .tdm file, after the inference passes) -> ONNX nodes.

Each tandem op maps to one or a few standard ONNX ops (opset 17). tandem promotes dtypes the
way PyTorch does (a float32 tensor times a Python float stays float32); ONNX wants equal input
types, so constants are written in the type an op computes in and other inputs are cast.
Ops without a mapping raise NotImplementedError naming the op."""
from __future__ import annotations

import json
import math
import re

import numpy as np

from . import _proto as P
from . import _rnn

_NP = {"float32": np.float32, "float64": np.float64, "float16": np.float16, "int64": np.int64,
       "int32": np.int32, "int16": np.int16, "int8": np.int8, "uint8": np.uint8, "bool": np.bool_}
_KIND = {"bool": 0, "uint8": 1, "int8": 1, "int16": 1, "int32": 1, "int64": 1, "float16": 2,
         "bfloat16": 2, "float32": 2, "float64": 2}
_SYM = re.compile(r"^(-?\d*)N([+-]\d+)?$")


def _sym(d):
    """(mul, add) of a dim or integer attribute: "2N+1" -> (2, 1), 7 -> (0, 7)."""
    if isinstance(d, int):
        return 0, d
    m = _SYM.match(d)
    mul = m.group(1)
    mul = 1 if mul in ("", None) else (-1 if mul == "-" else int(mul))
    return mul, int(m.group(2) or 0)


def _dim_param(d):
    return d if isinstance(d, int) else str(d)


_UNARY = {"abs": "Abs", "neg": "Neg", "exp": "Exp", "log": "Log", "sqrt": "Sqrt",
          "reciprocal": "Reciprocal", "sigmoid": "Sigmoid", "tanh": "Tanh", "relu": "Relu",
          "erf": "Erf", "sin": "Sin", "cos": "Cos", "tan": "Tan", "asin": "Asin",
          "acos": "Acos", "atan": "Atan", "sinh": "Sinh", "cosh": "Cosh", "asinh": "Asinh",
          "acosh": "Acosh", "atanh": "Atanh", "floor": "Floor", "ceil": "Ceil", "sign": "Sign",
          "isnan": "IsNaN", "logical_not": "Not", "hardswish": "HardSwish"}
_BINARY = {"mul": "Mul", "div": "Div", "pow": "Pow", "maximum": "Max", "minimum": "Min",
           "eq": "Equal", "lt": "Less", "le": "LessOrEqual", "gt": "Greater",
           "ge": "GreaterOrEqual", "logical_and": "And", "logical_or": "Or", "logical_xor": "Xor"}
_COMPARE = {"eq", "ne", "lt", "le", "gt", "ge"}
_LOGICAL = {"logical_and", "logical_or", "logical_xor", "logical_not"}


class Converter:
    def __init__(self, graph_json: str, constants, opset: int):
        g = json.loads(graph_json)
        self.g = g
        self.opset = opset
        self.values = g["values"]
        self.batch = g["batch"]
        self.nodes, self.inits = [], []
        self.const = {}  # value id -> numpy array (constants)
        self.wrapped = set()
        self.counter = 0
        self.batch_name = None  # the ONNX name of the batch size as a 1-element int64 tensor
        by_name = dict(constants)
        for c in g["constants"]:
            v = c["value"]
            self.const[v] = by_name[c["tensor"]].detach().numpy()
            if c.get("wrapped"):
                self.wrapped.add(v)
        self.inputs = [(p["value"], p["name"]) for p in g["inputs"]]
        self.names = {v: name for v, name in self.inputs}
        self.emitted_consts = {}

    # --- helpers ----------------------------------------------------------------------------
    def dtype(self, v):
        return self.values[v][0]

    def shape(self, v):
        return self.values[v][1]

    def concrete(self, v):
        """The value's shape at the export batch size."""
        return [d if isinstance(d, int) else _sym(d)[0] * self.batch + _sym(d)[1]
                for d in self.shape(v)]

    def tmp(self, hint="t"):
        self.counter += 1
        return f"_{hint}{self.counter}"

    def emit(self, op, inputs, outputs=None, **attrs):
        outputs = outputs or [self.tmp(op.lower())]
        self.nodes.append(P.node(op, inputs, outputs, name=f"n{len(self.nodes)}_{op}", **attrs))
        return outputs[0] if len(outputs) == 1 else outputs

    def initializer(self, array, hint="c"):
        array = np.ascontiguousarray(array)
        name = self.tmp(hint)
        dt = {np.dtype(v): k for k, v in _NP.items()}[array.dtype]
        self.inits.append(P.tensor(name, P.DTYPES[dt], array.shape, array.tobytes()))
        return name

    def ints(self, values, hint="i"):
        return self.initializer(np.asarray(values, dtype=np.int64), hint)

    def ref(self, v, as_dtype=None):
        """ONNX name of value v, converted to as_dtype if given."""
        want = as_dtype or self.dtype(v)
        if v in self.const:
            key = (v, want)
            if key not in self.emitted_consts:
                self.emitted_consts[key] = self.initializer(self.const[v].astype(_NP[want]), f"k{v}_")
            return self.emitted_consts[key]
        name = self.names[v]
        if want != self.dtype(v):
            return self.emit("Cast", [name], to=P.DTYPES[want])
        return name

    def out(self, v):
        self.names[v] = f"v{v}"
        return self.names[v]

    def batch_size(self):
        if self.batch_name is None:
            v0 = self.inputs[0][0]
            s = self.emit("Shape", [self.names[v0]])
            self.batch_name = self.emit("Gather", [s, self.ints([0])], axis=0)
        return self.batch_name

    def shape_input(self, entries):
        """A 1-D int64 tensor of a shape attribute, computed from the batch size where it has
        symbolic entries."""
        syms = [_sym(e) for e in entries]
        if all(m == 0 for m, _ in syms):
            return self.ints([a for _, a in syms], "shape")
        parts = []
        for m, a in syms:
            if m == 0:
                parts.append(self.ints([a]))
            else:
                t = self.batch_size()
                if m != 1:
                    t = self.emit("Mul", [t, self.ints([m])])
                if a:
                    t = self.emit("Add", [t, self.ints([a])])
                parts.append(t)
        return self.emit("Concat", parts, axis=0)

    def result_type(self, vs):
        """tandem's promotion (tensors with dims > 0-d tensors > Python numbers)."""
        cls = [[], [], []]
        for v in vs:
            c = 2 if v in self.wrapped else (1 if len(self.shape(v)) == 0 else 0)
            d = self.dtype(v)
            if c == 2 and _KIND[d] == 2:
                d = "float32"
            cls[c].append(d)

        def promote(ds):
            return np.result_type(*[_NP[d] for d in ds]).name if ds else None

        def combine(h, lo):
            if h is None:
                return lo
            if lo is None or _KIND[lo] <= _KIND[h]:
                return h
            return promote([h, lo])
        low = combine(promote(cls[1]), promote(cls[2]))
        return combine(promote(cls[0]), low)

    # --- the graph --------------------------------------------------------------------------
    def convert(self):
        for i, n in enumerate(self.g["nodes"]):
            op = n["op"]
            fn = getattr(self, "op_" + op, None)
            try:
                if fn is not None:
                    fn(n, n.get("attrs", {}))
                elif op in _UNARY or op in _BINARY or op in _COMPARE:
                    self.elementwise(n, n.get("attrs", {}))
                else:
                    raise NotImplementedError(f"no ONNX mapping for '{op}'")
            except NotImplementedError as e:
                raise NotImplementedError(f"ONNX export: node {i} ({op}): {e}") from None
        outputs = []
        for p in self.g["outputs"]:
            v, name = p["value"], p["name"]
            src = self.ref(v)
            self.emit("Identity", [src], [name])
            outputs.append(P.value_info(name, P.DTYPES[self.dtype(v)],
                                        [_dim_param(d) for d in self.shape(v)]))
        inputs = [P.value_info(name, P.DTYPES[self.dtype(v)],
                               [_dim_param(d) for d in self.shape(v)]) for v, name in self.inputs]
        return P.graph("tandem", self.nodes, self.inits, inputs, outputs)

    def unused(self, n, k, what):
        for node in self.g["nodes"]:
            if n["outputs"][k] in node["inputs"]:
                raise NotImplementedError(f"its {what} output is used")
        for p in self.g["outputs"]:
            if p["value"] == n["outputs"][k]:
                raise NotImplementedError(f"its {what} output is a model output")

    # --- elementwise ------------------------------------------------------------------------
    def elementwise(self, n, a):
        op, ins, o = n["op"], n["inputs"], n["outputs"][0]
        ot = self.dtype(o)
        if op in _COMPARE or op in _LOGICAL:
            ct = "bool" if op in _LOGICAL else self.result_type(ins)
        else:
            ct = ot
        refs = [self.ref(v, ct) for v in ins]
        if op in _UNARY:
            self.emit(_UNARY[op], refs, [self.out(o)])
        elif op == "ne":
            self.emit("Not", [self.emit("Equal", refs)], [self.out(o)])
        else:
            self.emit(_BINARY[op], refs, [self.out(o)])

    def scalar(self, value, dtype):
        return self.initializer(np.asarray(value, dtype=_NP[dtype]), "s")

    def op_add(self, n, a, sub=False):
        ins, o = n["inputs"], n["outputs"][0]
        ct = self.dtype(o)
        x, y = self.ref(ins[0], ct), self.ref(ins[1], ct)
        alpha = a.get("alpha", 1)
        if alpha != 1:
            y = self.emit("Mul", [y, self.scalar(alpha, ct)])
        self.emit("Sub" if sub else "Add", [x, y], [self.out(o)])

    def op_sub(self, n, a):
        self.op_add(n, a, sub=True)

    def unary_composite(self, n, build):
        o = n["outputs"][0]
        x = self.ref(n["inputs"][0], self.dtype(o))
        self.emit("Identity", [build(x, self.dtype(o))], [self.out(o)])

    def op_rsqrt(self, n, a):
        self.unary_composite(n, lambda x, t: self.emit("Reciprocal", [self.emit("Sqrt", [x])]))

    def op_square(self, n, a):
        self.unary_composite(n, lambda x, t: self.emit("Mul", [x, x]))

    def op_silu(self, n, a):
        self.unary_composite(n, lambda x, t: self.emit("Mul", [x, self.emit("Sigmoid", [x])]))

    def op_gelu(self, n, a):
        def build(x, t):
            e = self.emit("Erf", [self.emit("Div", [x, self.scalar(math.sqrt(2.0), t)])])
            h = self.emit("Mul", [x, self.emit("Add", [e, self.scalar(1.0, t)])])
            return self.emit("Mul", [h, self.scalar(0.5, t)])
        self.unary_composite(n, build)

    def op_gelu_tanh(self, n, a):
        def build(x, t):
            x3 = self.emit("Mul", [self.emit("Mul", [x, x]), x])
            inner = self.emit("Add", [x, self.emit("Mul", [x3, self.scalar(0.044715, t)])])
            th = self.emit("Tanh", [self.emit("Mul", [inner, self.scalar(math.sqrt(2 / math.pi), t)])])
            h = self.emit("Mul", [x, self.emit("Add", [th, self.scalar(1.0, t)])])
            return self.emit("Mul", [h, self.scalar(0.5, t)])
        self.unary_composite(n, build)

    def op_softplus(self, n, a):
        if a.get("beta", 1) != 1:
            raise NotImplementedError("softplus with beta != 1")
        self.unary_composite(n, lambda x, t: self.emit("Softplus", [x]))

    def op_mish(self, n, a):
        self.unary_composite(n, lambda x, t: self.emit(
            "Mul", [x, self.emit("Tanh", [self.emit("Softplus", [x])])]))

    def op_logsigmoid(self, n, a):
        self.unary_composite(n, lambda x, t: self.emit(
            "Neg", [self.emit("Softplus", [self.emit("Neg", [x])])]))

    def op_hardsigmoid(self, n, a):
        self.unary_composite(n, lambda x, t: self.emit("HardSigmoid", [x], alpha=1 / 6, beta=0.5))

    def op_leaky_relu(self, n, a):
        self.unary_composite(n, lambda x, t: self.emit(
            "LeakyRelu", [x], alpha=float(a.get("negative_slope", 0.01))))

    def op_elu(self, n, a):
        if a.get("scale", 1) != 1 or a.get("input_scale", 1) != 1:
            raise NotImplementedError("elu with scale or input_scale != 1 (selu, celu)")
        self.unary_composite(n, lambda x, t: self.emit("Elu", [x], alpha=float(a.get("alpha", 1))))

    def op_expm1(self, n, a):
        self.unary_composite(n, lambda x, t: self.emit("Sub", [self.emit("Exp", [x]), self.scalar(1, t)]))

    def op_log1p(self, n, a):
        self.unary_composite(n, lambda x, t: self.emit("Log", [self.emit("Add", [x, self.scalar(1, t)])]))

    def op_clamp(self, n, a, lo="min", hi="max"):
        o = n["outputs"][0]
        t = self.dtype(o)
        x = self.ref(n["inputs"][0], t)
        mn = self.scalar(a[lo], t) if lo in a and a[lo] is not None else ""
        mx = self.scalar(a[hi], t) if hi in a and a[hi] is not None else ""
        self.emit("Clip", [x, mn, mx], [self.out(o)])

    def op_clamp_min(self, n, a):
        self.op_clamp(n, a, lo="min", hi="_")

    def op_clamp_max(self, n, a):
        self.op_clamp(n, a, lo="_", hi="max")

    def op_where(self, n, a):
        c, x, y = n["inputs"]
        o = n["outputs"][0]
        t = self.dtype(o)
        self.emit("Where", [self.ref(c, "bool"), self.ref(x, t), self.ref(y, t)], [self.out(o)])

    def op_cast(self, n, a):
        o = n["outputs"][0]
        self.emit("Cast", [self.ref(n["inputs"][0])], [self.out(o)], to=P.DTYPES[self.dtype(o)])

    # --- layers -----------------------------------------------------------------------------
    def op_conv2d(self, n, a):
        ins, o = n["inputs"], n["outputs"][0]
        w = self.concrete(ins[1])
        refs = [self.ref(v) for v in ins]
        act = a.get("activation")
        y = self.out(o) if not act else self.tmp("conv")
        self.emit("Conv", refs, [y], kernel_shape=w[2:], strides=a["stride"], pads=a["padding"],
                  dilations=a["dilation"], group=a["groups"])
        if act:
            self.emit({"relu": "Relu", "sigmoid": "Sigmoid", "tanh": "Tanh"}[act], [y], [self.out(o)])

    def op_batch_norm(self, n, a):
        if a["training"]:
            raise NotImplementedError("batch_norm in training mode")
        self.unused(n, 1, "mean")
        self.unused(n, 2, "rstd")
        ins, o = n["inputs"], n["outputs"][0]
        C = self.concrete(ins[0])[1]
        t = self.dtype(o)
        k = 1
        w = self.ref(ins[k], t) if a["has_weight"] else self.initializer(np.ones(C, _NP[t]))
        k += a["has_weight"]
        b = self.ref(ins[k], t) if a["has_bias"] else self.initializer(np.zeros(C, _NP[t]))
        k += a["has_bias"]
        mean, var = self.ref(ins[k], t), self.ref(ins[k + 1], t)
        x = self.ref(ins[0])
        act = a.get("activation")
        y = self.out(o) if not act else self.tmp("bn")
        if len(self.shape(ins[0])) == 2:  # (N, C): as an unsqueezed (N, C, 1)
            x = self.emit("Unsqueeze", [x, self.ints([2])])
            z = self.emit("BatchNormalization", [x, w, b, mean, var], epsilon=float(a["eps"]))
            self.emit("Squeeze", [z, self.ints([2])], [y])
        else:
            self.emit("BatchNormalization", [x, w, b, mean, var], [y], epsilon=float(a["eps"]))
        if act:
            self.emit("Relu", [y], [self.out(o)])

    def op_layer_norm(self, n, a):
        self.unused(n, 1, "mean")
        self.unused(n, 2, "rstd")
        ins, o = n["inputs"], n["outputs"][0]
        ns = a["normalized_shape"]
        t = self.dtype(o)
        refs = [self.ref(ins[0])]
        refs.append(self.ref(ins[1], t) if a["has_weight"] else
                    self.initializer(np.ones(ns, _NP[t])))
        if a["has_bias"]:
            refs.append(self.ref(ins[1 + a["has_weight"]], t))
        self.emit("LayerNormalization", refs, [self.out(o)], axis=-len(ns),
                  epsilon=float(a["eps"]))

    def pool_attrs(self, n, a, pads2):
        ph, pw = pads2
        return dict(kernel_shape=a["kernel"], strides=a["stride"], pads=[ph, pw, ph, pw],
                    ceil_mode=int(a["ceil_mode"]))

    def check_pool_shape(self, n, a):
        # ONNX's ceil_mode keeps a last window that starts in the padding; PyTorch drops it.
        if not a["ceil_mode"]:
            return
        x, y = self.concrete(n["inputs"][0]), self.concrete(n["outputs"][0])
        for i in range(2):
            k, s, p, d = a["kernel"][i], a["stride"][i], a["padding"][i], a["dilation"][i]
            onnx_out = math.ceil((x[2 + i] + 2 * p - d * (k - 1) - 1) / s + 1)
            if onnx_out != y[2 + i]:
                raise NotImplementedError("ceil_mode pooling whose last window starts in the padding")

    def op_max_pool2d(self, n, a):
        self.unused(n, 1, "indices")
        self.check_pool_shape(n, a)
        self.emit("MaxPool", [self.ref(n["inputs"][0])], [self.out(n["outputs"][0])],
                  dilations=a["dilation"], **self.pool_attrs(n, a, a["padding"]))

    def op_avg_pool2d(self, n, a):
        if any(d != 1 for d in a["dilation"]) or a["divisor_override"]:
            raise NotImplementedError("avg_pool2d with dilation or divisor_override")
        self.check_pool_shape(n, a)
        self.emit("AveragePool", [self.ref(n["inputs"][0])], [self.out(n["outputs"][0])],
                  count_include_pad=int(a["count_include_pad"]), **self.pool_attrs(n, a, a["padding"]))

    def adaptive(self, n, a, glob, local):
        x, o = n["inputs"][0], n["outputs"][0]
        h, w = self.concrete(x)[2:]
        oh, ow = a["output_size"]
        if (oh, ow) == (1, 1):
            self.emit(glob, [self.ref(x)], [self.out(o)])
        elif h % oh == 0 and w % ow == 0:
            k = [h // oh, w // ow]
            self.emit(local, [self.ref(x)], [self.out(o)], kernel_shape=k, strides=k)
        else:
            raise NotImplementedError(f"adaptive pooling {h}x{w} -> {oh}x{ow} (not a divisor)")

    def op_adaptive_avg_pool2d(self, n, a):
        self.adaptive(n, a, "GlobalAveragePool", "AveragePool")

    def op_adaptive_max_pool2d(self, n, a):
        self.unused(n, 1, "indices")
        self.adaptive(n, a, "GlobalMaxPool", "MaxPool")

    def resize(self, n, a, mode):
        x, o = n["inputs"][0], n["outputs"][0]
        if a["scale_h"] > 0 and a["scale_w"] > 0:  # from a scale factor: its ratio, as tandem
            scales = self.initializer(np.asarray([1, 1, 1 / a["scale_h"], 1 / a["scale_w"]],
                                                 np.float32))
            ins = [self.ref(x), "", scales]
        else:
            xs = self.shape(x)
            ins = [self.ref(x), "", "", self.shape_input([xs[0], xs[1], *a["size"]])]
        coord = ("asymmetric" if mode == "nearest" else
                 "align_corners" if a["align_corners"] else "pytorch_half_pixel")
        self.emit("Resize", ins, [self.out(o)], mode=mode, coordinate_transformation_mode=coord,
                  nearest_mode="floor" if mode == "nearest" else None)

    def op_upsample_nearest2d(self, n, a):
        self.resize(n, a, "nearest")

    def op_upsample_bilinear2d(self, n, a):
        self.resize(n, a, "linear")

    def op_matmul(self, n, a):
        self.emit("MatMul", [self.ref(v) for v in n["inputs"]], [self.out(n["outputs"][0])])

    def op_rnn_layer(self, n, a):
        _rnn.convert(self, n, a)

    def op_softmax(self, n, a):
        self.emit("Softmax", [self.ref(n["inputs"][0])], [self.out(n["outputs"][0])], axis=a["dim"])

    def op_log_softmax(self, n, a):
        self.emit("LogSoftmax", [self.ref(n["inputs"][0])], [self.out(n["outputs"][0])], axis=a["dim"])

    # --- shapes -----------------------------------------------------------------------------
    def op_reshape(self, n, a):
        x, o = n["inputs"][0], n["outputs"][0]
        self.emit("Reshape", [self.ref(x), self.shape_input(a["shape"])], [self.out(o)])

    op_view = op_reshape

    def op_permute(self, n, a):
        nd = len(self.shape(n["inputs"][0]))
        perm = [d % nd for d in a["dims"]] if nd else []
        self.emit("Transpose", [self.ref(n["inputs"][0])], [self.out(n["outputs"][0])], perm=perm)

    def op_expand(self, n, a):
        shape = [1 if e == -1 else e for e in a["shape"]]
        self.emit("Expand", [self.ref(n["inputs"][0]), self.shape_input(shape)],
                  [self.out(n["outputs"][0])])

    def op_squeeze(self, n, a):
        x = n["inputs"][0]
        xs = self.shape(x)
        nd = len(xs)
        dims = [i for i, d in enumerate(xs) if d == 1] if a["all"] else \
            [d % nd for d in a["dims"] if xs[d % nd] == 1]
        if not dims:
            self.emit("Identity", [self.ref(x)], [self.out(n["outputs"][0])])
        else:
            self.emit("Squeeze", [self.ref(x), self.ints(dims)], [self.out(n["outputs"][0])])

    def op_unsqueeze(self, n, a):
        nd = len(self.shape(n["outputs"][0]))
        self.emit("Unsqueeze", [self.ref(n["inputs"][0]), self.ints([a["dim"] % nd])],
                  [self.out(n["outputs"][0])])

    def op_slice(self, n, a):
        x = n["inputs"][0]
        big = 2 ** 62
        start = a["start"] if a["has_start"] else 0
        stop = a["stop"] if a["has_stop"] else big
        self.emit("Slice", [self.ref(x), self.ints([start]), self.ints([stop]),
                            self.ints([a["dim"]]), self.ints([a["step"]])],
                  [self.out(n["outputs"][0])])

    def op_select(self, n, a):
        idx = self.initializer(np.asarray(a["index"], dtype=np.int64))
        self.emit("Gather", [self.ref(n["inputs"][0]), idx], [self.out(n["outputs"][0])], axis=a["dim"])

    def op_cat(self, n, a):
        o = n["outputs"][0]
        self.emit("Concat", [self.ref(v, self.dtype(o)) for v in n["inputs"]], [self.out(o)],
                  axis=a["dim"])

    def op_pad(self, n, a):
        x, o = n["inputs"][0], n["outputs"][0]
        nd = len(self.shape(x))
        p = a["pad"]
        begin, end = [0] * nd, [0] * nd
        for i in range(len(p) // 2):  # pairs from the last dim backwards
            begin[nd - 1 - i], end[nd - 1 - i] = p[2 * i], p[2 * i + 1]
        mode = {"constant": "constant", "reflect": "reflect", "replicate": "edge"}.get(a["mode"])
        if mode is None:
            raise NotImplementedError(f"pad mode '{a['mode']}'")
        value = a["value"]
        value = {"inf": math.inf, "-inf": -math.inf, "nan": math.nan}.get(value, value)
        ins = [self.ref(x), self.ints(begin + end)]
        if mode == "constant":
            ins.append(self.scalar(float(value), self.dtype(x)))
        self.emit("Pad", ins, [self.out(o)], mode=mode)

    def reduce(self, n, a, onnx_op):
        x, o = n["inputs"][0], n["outputs"][0]
        nd = len(self.shape(x))
        dims = [d % nd for d in a["dims"]] if a["dims"] else list(range(nd))
        src = self.ref(x)
        if self.dtype(o) != self.dtype(x):
            src = self.emit("Cast", [src], to=P.DTYPES[self.dtype(o)])
        if onnx_op == "ReduceSum":  # axes is an input from opset 13
            self.emit(onnx_op, [src, self.ints(dims)], [self.out(o)], keepdims=int(a["keepdim"]))
        else:
            self.emit(onnx_op, [src], [self.out(o)], axes=dims, keepdims=int(a["keepdim"]))

    def op_sum(self, n, a):
        self.reduce(n, a, "ReduceSum")

    def op_mean(self, n, a):
        self.reduce(n, a, "ReduceMean")

    def op_amax(self, n, a):
        self.reduce(n, a, "ReduceMax")

    def op_amin(self, n, a):
        self.reduce(n, a, "ReduceMin")

    def op_prod(self, n, a):
        self.reduce(n, a, "ReduceProd")

    def arg(self, n, a, red, arg):
        x = n["inputs"][0]
        nd = max(len(self.shape(x)), 1)
        d, keep = a["dim"] % nd, int(a["keepdim"])
        self.emit(red, [self.ref(x)], [self.out(n["outputs"][0])], axes=[d], keepdims=keep)
        self.emit(arg, [self.ref(x)], [self.out(n["outputs"][1])], axis=d, keepdims=keep,
                  select_last_index=0)

    def op_max_dim(self, n, a):
        self.arg(n, a, "ReduceMax", "ArgMax")

    def op_min_dim(self, n, a):
        self.arg(n, a, "ReduceMin", "ArgMin")

    def op_gather(self, n, a):
        x, idx = n["inputs"]
        self.emit("GatherElements", [self.ref(x), self.ref(idx, "int64")],
                  [self.out(n["outputs"][0])], axis=a["dim"])

    def op_index(self, n, a):
        if len(n["inputs"]) != 2 or len(a["dims"]) != 1:
            raise NotImplementedError("indexing with more than one index tensor")
        x, idx = n["inputs"]
        self.emit("Gather", [self.ref(x), self.ref(idx, "int64")], [self.out(n["outputs"][0])],
                  axis=a["dims"][0])

    def tri(self, n, a, upper):
        self.emit("Trilu", [self.ref(n["inputs"][0]), self.initializer(np.asarray(a["diagonal"], np.int64))],
                  [self.out(n["outputs"][0])], upper=upper)

    def op_tril(self, n, a):
        self.tri(n, a, 0)

    def op_triu(self, n, a):
        self.tri(n, a, 1)
