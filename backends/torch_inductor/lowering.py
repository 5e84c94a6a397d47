"""The torch_inductor adapter's lowering: a reprokit graph (its JSON form,
docs/BACKENDS.md) as a torch.fx.GraphModule, one call_function per node.

Each node function (rk_*) has the exact semantics of docs/FORMAT.md and
docs/COMPILER.md ("Numerics": round half to even, numpy's float mod/floordiv,
Python's integer ones with x mod 0 == 0, truncating and wrapping float-to-int
casts, gather's out-of-range zeros, ...) and returns exactly the node's declared
shape and dtype when run eagerly. Dynamo traces them (fullgraph=True), so they
branch only on Python values (attributes, static shapes, dtypes), never on a
tensor's values, and call nothing Dynamo cannot trace (.item(), data-dependent
shapes). Only torch is imported here (no torch._dynamo, no Inductor), so the
lowering runs on any torch with torch.fx, Debian's 1.13 included.

Tested by lowering_test.sh and serve_test.py beside it: generated graphs run
eagerly through the serve loop, every output of its declared type.
"""

import math

import numpy as np
import torch
import torch.fx
import torch.nn.functional as F

DTYPES = {"f16": torch.float16, "bf16": torch.bfloat16, "f32": torch.float32,
          "f64": torch.float64, "i32": torch.int32, "i64": torch.int64, "bool": torch.bool}
FLOATS = ("f16", "bf16", "f32", "f64")


# ---------------------------------------------------------------------------
# Scalars as `cast` converts them (float -> int truncates and wraps, NaN/Inf -> 0)

def scalar_as(value, dtype):
    if dtype in FLOATS:
        return float(value)
    if dtype == "bool":
        return bool(value != 0)
    if isinstance(value, float):
        if not math.isfinite(value):
            return 0
        value = int(math.trunc(value))
    bits = 32 if dtype == "i32" else 64
    value &= (1 << bits) - 1
    return value - (1 << bits) if value >= 1 << (bits - 1) else value


# ---------------------------------------------------------------------------
# Node functions: the targets of call_function. Dynamo traces through them.

def rk_full(shape, value, dtype, device):
    return torch.full(shape, value, dtype=dtype, device=device)


def rk_iota(shape, axis, dtype, device):
    view = [1] * len(shape)
    view[axis] = shape[axis]
    return torch.arange(shape[axis], device=device).reshape(view).expand(shape).to(dtype)


def rk_rsqrt(x):
    return torch.rsqrt(x)


def rk_clip(x, lo, hi):
    if lo is not None:
        x = torch.clamp_min(x, lo)
    if hi is not None:
        x = torch.clamp_max(x, hi)
    return x


def rk_int_div(a, b):
    # Truncating, x / 0 == 0, MIN / -1 == MIN (wraps).
    safe = torch.where((b == 0) | (b == -1), torch.ones_like(b), b)
    q = torch.div(a, safe, rounding_mode="trunc")
    return torch.where(b == 0, torch.zeros_like(q), torch.where(b == -1, -a, q))


def rk_int_mod(a, b):
    safe = torch.where((b == 0) | (b == -1), torch.ones_like(b), b)
    r = torch.remainder(a, safe)
    return torch.where((b == 0) | (b == -1), torch.zeros_like(r), r)


def rk_int_floordiv(a, b):
    safe = torch.where((b == 0) | (b == -1), torch.ones_like(b), b)
    q = torch.floor_divide(a, safe)
    return torch.where(b == 0, torch.zeros_like(q), torch.where(b == -1, -a, q))


def _float_divmod(a, b):
    # numpy's npy_divmod, as compiler/reference/elementwise.cc's FloatFloorDivMod.
    a, b = torch.broadcast_tensors(a, b)
    m = torch.fmod(a, b)
    d = (a - m) / b
    flip = (m != 0) & ((b < 0) != (m < 0))
    r = torch.where(m != 0, torch.where(flip, m + b, m), torch.copysign(torch.zeros_like(m), b))
    d = torch.where(flip, d - 1, d)
    q = torch.floor(d)
    q = torch.where(d - q > 0.5, q + 1, q)
    q = torch.where(d != 0, q, torch.copysign(torch.zeros_like(d), a / b))
    zero = b == 0
    return torch.where(zero, a / b, q), torch.where(zero, m, r)


def rk_float_mod(a, b):
    return _float_divmod(a, b)[1]


def rk_float_floordiv(a, b):
    return _float_divmod(a, b)[0]


def rk_int_pow(a, b):
    return torch.pow(a, torch.clamp_min(b, 0))


def rk_cast(x, dtype):
    return x.to(dtype)


def rk_cast_float_to_int(x, dtype):
    """Truncating; NaN and +-Inf give 0; out of range wraps (mod 2^64)."""
    t = torch.trunc(torch.nan_to_num(x.double(), nan=0.0, posinf=0.0, neginf=0.0))
    t = torch.fmod(t, 2.0 ** 64)
    t = torch.where(t >= 2.0 ** 63, t - 2.0 ** 64, t)
    t = torch.where(t < -2.0 ** 63, t + 2.0 ** 64, t)
    return t.to(torch.int64).to(dtype)


def rk_reduce(x, kind, axes, keepdim):
    if not axes:
        return x
    if kind == "sum":
        return torch.sum(x, dim=axes, keepdim=keepdim, dtype=x.dtype)
    if kind == "mean":
        return torch.mean(x, dim=axes, keepdim=keepdim)
    if kind == "max":
        return torch.amax(x, dim=axes, keepdim=keepdim)
    return torch.amin(x, dim=axes, keepdim=keepdim)


def rk_argmax(x, axis, keepdim):
    return torch.argmax(x, dim=axis, keepdim=keepdim)


def rk_cumsum(x, axis, exclusive, reverse):
    if reverse:
        x = torch.flip(x, [axis])
    s = torch.cumsum(x, dim=axis, dtype=x.dtype)
    if exclusive:
        s = torch.narrow(s, axis, 0, x.shape[axis] - 1)
        pad_shape = list(x.shape)
        pad_shape[axis] = 1
        s = torch.cat([torch.zeros(pad_shape, dtype=x.dtype, device=x.device), s], dim=axis)
    if reverse:
        s = torch.flip(s, [axis])
    return s


def rk_reshape(x, shape):
    return torch.reshape(x, shape)


def rk_transpose(x, perm):
    return torch.permute(x, perm)


def rk_broadcast_to(x, shape):
    return torch.broadcast_to(x, shape)


def rk_slice(x, start, limit, stride):
    return x[tuple(slice(s, l, st) for s, l, st in zip(start, limit, stride))]


def rk_concat(axis, *xs):
    return torch.cat(xs, dim=axis)


def rk_pad(x, torch_pads, value):
    return F.pad(x, torch_pads, mode="constant", value=value)


def torch_pads_of(pads, rank):
    """FORMAT.md's pads (every leading count, then every trailing count) in
    F.pad's order (last axis first, (leading, trailing) each)."""
    torch_pads = []
    for axis in reversed(range(rank)):
        torch_pads += [pads[axis], pads[axis + rank]]
    return torch_pads


def rk_matmul(a, b):
    return torch.matmul(a, b)


def rk_gather(data, indices, axis):
    size = data.shape[axis]
    idx = indices.to(torch.int64)
    idx = torch.where(idx < 0, idx + size, idx)
    valid = (idx >= 0) & (idx < size)
    safe = torch.where(valid, idx, torch.zeros_like(idx))
    out_shape = list(data.shape[:axis]) + list(indices.shape) + list(data.shape[axis + 1:])
    out = torch.index_select(data, axis, safe.reshape(-1)).reshape(out_shape)
    mask_shape = [1] * axis + list(indices.shape) + [1] * (data.dim() - axis - 1)
    return torch.where(valid.reshape(mask_shape), out, torch.zeros_like(out))


def _pad_nchw(x, window_pads, value):
    """window_pads: F.pad's [left, right, top, bottom], or None for none."""
    if window_pads is None:
        return x
    return F.pad(x, window_pads, mode="constant", value=value)


def window_pads_of(pads):
    """FORMAT.md's [top, left, bottom, right] as _pad_nchw's argument."""
    top, left, bottom, right = pads
    return None if not any(pads) else [left, right, top, bottom]


def rk_conv2d(x, w, strides, window_pads, dilations, groups):
    return F.conv2d(_pad_nchw(x, window_pads, 0.0), w, None, strides, 0, dilations, groups)


def rk_max_pool2d(x, kernel, strides, window_pads, dilations):
    return F.max_pool2d(_pad_nchw(x, window_pads, -math.inf), kernel, strides, 0, dilations)


def rk_avg_pool2d(x, kernel, strides, window_pads, count_include_pad):
    padded = _pad_nchw(x, window_pads, 0.0)
    if count_include_pad:
        return F.avg_pool2d(padded, kernel, strides, 0)
    total = F.avg_pool2d(padded, kernel, strides, 0, divisor_override=1)
    ones = _pad_nchw(torch.ones_like(x), window_pads, 0.0)
    count = F.avg_pool2d(ones, kernel, strides, 0, divisor_override=1)
    return total / count


def rk_gelu(x):
    return F.gelu(x)


def rk_softmax(x, axis):
    return torch.softmax(x, dim=axis)


def rk_log_softmax(x, axis):
    return torch.log_softmax(x, dim=axis)


def rk_layer_norm(x, gamma, beta, eps):
    return F.layer_norm(x, (x.shape[-1],), gamma, beta, eps)


def rk_rms_norm(x, gamma, eps):
    return F.rms_norm(x, (x.shape[-1],), gamma, eps)


def rk_rms_norm_decomposed(x, gamma, eps, wide_dtype):
    """For torch before 2.4 (no F.rms_norm): the same computation, in f32 for
    f16/bf16 (wide_dtype), as F.rms_norm's."""
    wide = x.to(wide_dtype)
    normed = wide * torch.rsqrt(torch.mean(wide * wide, dim=-1, keepdim=True) + eps)
    return normed.to(x.dtype) * gamma


UNARY = {"neg": torch.neg, "abs": torch.abs, "exp": torch.exp, "log": torch.log,
         "sqrt": torch.sqrt, "rsqrt": rk_rsqrt, "reciprocal": torch.reciprocal,
         "tanh": torch.tanh, "sigmoid": torch.sigmoid, "relu": torch.relu, "erf": torch.erf,
         "sin": torch.sin, "cos": torch.cos, "floor": torch.floor, "ceil": torch.ceil,
         "round": torch.round, "not": torch.logical_not}
BINARY = {"add": torch.add, "sub": torch.sub, "mul": torch.mul, "maximum": torch.maximum,
          "minimum": torch.minimum, "eq": torch.eq, "ne": torch.ne, "lt": torch.lt,
          "le": torch.le, "gt": torch.gt, "ge": torch.ge, "and": torch.logical_and,
          "or": torch.logical_or}
REDUCE = {"reduce_sum": "sum", "reduce_mean": "mean", "reduce_max": "max", "reduce_min": "min"}
OTHER = ("input", "constant", "full", "iota", "clip", "div", "pow", "mod", "floordiv", "where",
         "cast", "argmax", "cumsum", "reshape", "transpose", "broadcast_to", "slice", "concat",
         "squeeze", "unsqueeze", "pad", "matmul", "gather", "conv2d", "max_pool2d",
         "avg_pool2d", "gelu", "softmax", "log_softmax", "layer_norm", "rms_norm")
OPS = sorted(set(UNARY) | set(BINARY) | set(REDUCE) | set(OTHER))


def _axis(axis, rank):
    """An axis attribute (FORMAT.md: negative counts from the end) as 0..rank-1."""
    return axis + rank if axis < 0 else axis


def lower(node, graph, args, device):
    """(target, args) of the call_function for one node."""
    op, at = node.op, node.attrs
    operand_dtype = graph.nodes[node.operands[0]].dtype if node.operands else None
    operand_shape = graph.nodes[node.operands[0]].shape if node.operands else node.shape
    is_int = operand_dtype in ("i32", "i64")
    if op in UNARY:
        return UNARY[op], (args[0],)
    if op in BINARY:
        return BINARY[op], tuple(args)
    if op == "full":
        return rk_full, (node.shape, scalar_as(at["value"], node.dtype), DTYPES[node.dtype], device)
    if op == "iota":
        return rk_iota, (node.shape, at["axis"], DTYPES[node.dtype], device)
    if op == "clip":
        lo = scalar_as(at["min"], operand_dtype) if "min" in at else None
        hi = scalar_as(at["max"], operand_dtype) if "max" in at else None
        return rk_clip, (args[0], lo, hi)
    if op == "div":
        return (rk_int_div if is_int else torch.div), tuple(args)
    if op == "pow":
        return (rk_int_pow if is_int else torch.pow), tuple(args)
    if op == "mod":
        return (rk_int_mod if is_int else rk_float_mod), tuple(args)
    if op == "floordiv":
        return (rk_int_floordiv if is_int else rk_float_floordiv), tuple(args)
    if op == "where":
        return torch.where, tuple(args)
    if op == "cast":
        if operand_dtype in FLOATS and node.dtype in ("i32", "i64"):
            return rk_cast_float_to_int, (args[0], DTYPES[node.dtype])
        return rk_cast, (args[0], DTYPES[node.dtype])
    if op in REDUCE:
        return rk_reduce, (args[0], REDUCE[op], list(at["axes"]), at["keepdim"])
    if op == "argmax":
        return rk_argmax, (args[0], at["axis"], at["keepdim"])
    if op == "cumsum":
        return rk_cumsum, (args[0], at["axis"], at.get("exclusive", False),
                           at.get("reverse", False))
    if op in ("reshape", "squeeze", "unsqueeze"):
        return rk_reshape, (args[0], list(node.shape))
    if op == "transpose":
        return rk_transpose, (args[0], list(at["perm"]))
    if op == "broadcast_to":
        return rk_broadcast_to, (args[0], list(at["shape"]))
    if op == "slice":
        return rk_slice, (args[0], at["start"], at["limit"], at["stride"])
    if op == "concat":
        return rk_concat, (at["axis"],) + tuple(args)
    if op == "pad":
        return rk_pad, (args[0], torch_pads_of(list(at["pads"]), len(operand_shape)),
                        scalar_as(at.get("value", 0.0), node.dtype))
    if op == "matmul":
        return rk_matmul, tuple(args)
    if op == "gather":
        # rk_gather builds shapes from the axis: negative ones counted from the end.
        return rk_gather, (args[0], args[1], _axis(at["axis"], len(operand_shape)))
    if op == "conv2d":
        return rk_conv2d, (args[0], args[1], at["strides"], window_pads_of(at["pads"]),
                           at["dilations"], at["groups"])
    if op == "max_pool2d":
        return rk_max_pool2d, (args[0], at["kernel"], at["strides"],
                               window_pads_of(at["pads"]), at["dilations"])
    if op == "avg_pool2d":
        return rk_avg_pool2d, (args[0], at["kernel"], at["strides"],
                               window_pads_of(at["pads"]), at["count_include_pad"])
    if op == "gelu":
        return rk_gelu, (args[0],)
    if op in ("softmax", "log_softmax"):
        return (rk_softmax if op == "softmax" else rk_log_softmax), (args[0], at["axis"])
    if op == "layer_norm":
        return rk_layer_norm, (args[0], args[1], args[2], at["eps"])
    if op == "rms_norm":
        if hasattr(F, "rms_norm"):
            return rk_rms_norm, (args[0], args[1], at["eps"])
        wide = torch.float32 if operand_dtype in ("f16", "bf16") else DTYPES[operand_dtype]
        return rk_rms_norm_decomposed, (args[0], args[1], at["eps"], wide)
    raise NotImplementedError("torch_inductor: no mapping for op %s" % op)


def to_torch(value, dtype, device):
    """A decoded protocol tensor (numpy; bf16 widened to float32) -> torch, of
    its shape (np.ascontiguousarray would make a scalar shape [1])."""
    t = torch.from_numpy(np.array(value, order="C", copy=True))
    return t.to(DTYPES[dtype]).to(device)


def build_module(graph, device):
    """The graph as a torch.fx.GraphModule: placeholders for inputs, get_attr for
    constants, one call_function per other node."""
    fx = torch.fx.Graph()
    root = torch.nn.Module()
    env = {}
    for node in graph.nodes:
        if node.op == "input":
            env[node.id] = fx.placeholder("in%d_%s" % (node.id, _ident(node.name)))
        elif node.op == "constant":
            name = "const%d" % node.id
            root.register_buffer(name, to_torch(node.attrs["value"], node.dtype, device))
            env[node.id] = fx.get_attr(name)
        else:
            target, args = lower(node, graph, [env[o] for o in node.operands], device)
            env[node.id] = fx.call_function(target, args)
    fx.output(tuple(env[o] for o in graph.outputs))
    return torch.fx.GraphModule(root, fx)


def _ident(name):
    return "".join(c if c.isalnum() else "_" for c in name)


