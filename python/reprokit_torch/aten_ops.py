"""Handlers: one ATen op (or a family) -> reprokit ops (the table in docs/PYTORCH.md).

Each handler gets the converter (its emit helpers), the converted args and
kwargs (Values for tensors, Python values for the rest, sizes specialized) and
the real result torch computed, whose dtype and shape it reproduces; it
returns a Value, a tuple of them (Lazy for elements built only when used), or
raises Refused for a use it cannot express.
Tested by python/tests/test_convert.py, op family by op family.
"""

import math

import numpy as np
import torch

from .convert import Lazy, Refused, rk_dtype, broadcast_shapes
from .rk_graph import FLOATS, Value

HANDLERS = {}


def on(*names):
    def register(fn):
        for n in names:
            HANDLERS[n] = fn
        return fn
    return register


def arg(args, kwargs, i, name, default=None):
    if len(args) > i:
        return args[i]
    return kwargs.get(name, default)


def odt(out):
    return rk_dtype(out.dtype)


def norm_dim(d, rank):
    r = max(rank, 1)
    if not -r <= d < r:
        raise Refused("dim %d out of range for rank %d" % (d, rank))
    return d % r


def dims_of(dims, rank):
    if dims is None or dims == []:
        return list(range(rank))
    if isinstance(dims, int):
        dims = [dims]
    return [norm_dim(d, rank) for d in dims]


def as_value(cx, x, dtype):
    return cx.tensor(x, dtype)


# -- elementwise -----------------------------------------------------------

UNARY = {
    "neg": "neg", "abs": "abs", "exp": "exp", "log": "log", "sqrt": "sqrt", "rsqrt": "rsqrt",
    "reciprocal": "reciprocal", "tanh": "tanh", "sigmoid": "sigmoid", "relu": "relu",
    "erf": "erf", "sin": "sin", "cos": "cos", "floor": "floor", "ceil": "ceil", "round": "round",
}


def _unary(op):
    def handler(cx, args, kwargs, out):
        return cx.unary(op, cx.tensor(args[0], odt(out)))
    return handler


for _name, _op in UNARY.items():
    HANDLERS["aten.%s.default" % _name] = _unary(_op)


@on("aten.trunc.default")
def _trunc(cx, args, kwargs, out):
    x = cx.tensor(args[0], odt(out))
    if x.dtype not in FLOATS:
        return x
    return cx.where(cx.binary("lt", x, 0.0), cx.unary("ceil", x), cx.unary("floor", x), x.dtype)


@on("aten.log1p.default")
def _log1p(cx, args, kwargs, out):
    x = cx.tensor(args[0], odt(out))
    return cx.unary("log", cx.binary("add", x, 1.0))


@on("aten.expm1.default")
def _expm1(cx, args, kwargs, out):
    x = cx.tensor(args[0], odt(out))
    return cx.binary("sub", cx.unary("exp", x), 1.0)


@on("aten.square.default")
def _square(cx, args, kwargs, out):
    x = cx.tensor(args[0], odt(out))
    return cx.binary("mul", x, x)


@on("aten.sign.default")
def _sign(cx, args, kwargs, out):
    dt = odt(out)
    x = cx.tensor(args[0], dt)
    pos = cx.cast(cx.binary("gt", x, 0), dt)
    neg = cx.cast(cx.binary("lt", x, 0), dt)
    return cx.binary("sub", pos, neg)


@on("aten.silu.default")
def _silu(cx, args, kwargs, out):
    x = cx.tensor(args[0], odt(out))
    return cx.binary("mul", x, cx.unary("sigmoid", x))


@on("aten.gelu.default")
def _gelu(cx, args, kwargs, out):
    x = cx.tensor(args[0], odt(out))
    approximate = arg(args, kwargs, 1, "approximate", "none")
    if approximate == "none":
        return cx.unary("gelu", x)
    # 0.5 x (1 + tanh(sqrt(2/pi) (x + 0.044715 x^3)))
    cube = cx.binary("mul", cx.binary("mul", x, x), x)
    inner = cx.binary("mul", cx.binary("add", x, cx.binary("mul", cube, 0.044715)),
                      math.sqrt(2.0 / math.pi))
    return cx.binary("mul", cx.binary("mul", x, 0.5), cx.binary("add", cx.unary("tanh", inner), 1.0))


@on("aten.hardtanh.default")
def _hardtanh(cx, args, kwargs, out):
    x = cx.tensor(args[0], odt(out))
    lo, hi = arg(args, kwargs, 1, "min_val", -1.0), arg(args, kwargs, 2, "max_val", 1.0)
    return cx.op("clip", [x], {"min": float(lo), "max": float(hi)}, x.dtype, x.shape)


@on("aten.hardsigmoid.default")
def _hardsigmoid(cx, args, kwargs, out):
    x = cx.tensor(args[0], odt(out))
    y = cx.binary("add", cx.binary("div", x, 6.0), 0.5)
    return cx.op("clip", [y], {"min": 0.0, "max": 1.0}, x.dtype, x.shape)


@on("aten.hardswish.default")
def _hardswish(cx, args, kwargs, out):
    x = cx.tensor(args[0], odt(out))
    y = cx.op("clip", [cx.binary("add", x, 3.0)], {"min": 0.0, "max": 6.0}, x.dtype, x.shape)
    return cx.binary("div", cx.binary("mul", x, y), 6.0)


@on("aten.leaky_relu.default")
def _leaky_relu(cx, args, kwargs, out):
    x = cx.tensor(args[0], odt(out))
    slope = arg(args, kwargs, 1, "negative_slope", 0.01)
    return cx.where(cx.binary("gt", x, 0.0), x, cx.binary("mul", x, float(slope)), x.dtype)


@on("aten.clamp.default", "aten.clamp_min.default", "aten.clamp_max.default",
    "aten.clip.default")
def _clamp(cx, args, kwargs, out):
    dt = odt(out)
    x = cx.tensor(args[0], dt)
    lo = arg(args, kwargs, 1, "min")
    hi = arg(args, kwargs, 2, "max")
    if "clamp_max" in cx._current_op:
        lo, hi = None, arg(args, kwargs, 1, "max")
    attrs = {}
    if lo is not None:
        attrs["min"] = float(lo)
    if hi is not None:
        attrs["max"] = float(hi)
    if any(math.isnan(v) for v in attrs.values()):
        raise Refused("clamp to NaN")
    return cx.op("clip", [x], attrs, dt, x.shape)


@on("aten.clamp.Tensor", "aten.clamp_min.Tensor", "aten.clamp_max.Tensor")
def _clamp_tensor(cx, args, kwargs, out):
    dt = odt(out)
    x = cx.tensor(args[0], dt)
    lo, hi = arg(args, kwargs, 1, "min"), arg(args, kwargs, 2, "max")
    if "clamp_max" in cx._current_op:
        lo, hi = None, arg(args, kwargs, 1, "max")
    if lo is not None:
        x = cx.binary("maximum", x, lo, dt)
    if hi is not None:
        x = cx.binary("minimum", x, hi, dt)
    return cx.broadcast_to(x, out.shape)


def _binary(op, compute=None):
    def handler(cx, args, kwargs, out):
        a, b = args[0], args[1]
        alpha = kwargs.get("alpha", args[2] if len(args) > 2 else 1)
        dt = odt(out)
        if compute == "promote":  # comparisons: the operands' common dtype
            dt = rk_dtype(torch.result_type(_real_like(a), _real_like(b)))
        if alpha != 1 and op in ("add", "sub"):
            b = cx.binary("mul", cx.tensor(b, dt), alpha, dt)
        result = cx.binary(op, cx.tensor(a, dt), cx.tensor(b, dt), dt)
        return cx.broadcast_to(result, out.shape)
    return handler


def _real_like(x):
    """A stand-in carrying x's dtype for torch.result_type."""
    if isinstance(x, Value):
        from .convert import RK_TO_TORCH
        return torch.empty((1,) * max(x.rank, 1) if x.rank else (), dtype=RK_TO_TORCH[x.dtype])
    return x


for _name, _op in {"add": "add", "sub": "sub", "mul": "mul", "div": "div", "maximum": "maximum",
                   "minimum": "minimum", "remainder": "mod", "floor_divide": "floordiv"}.items():
    HANDLERS["aten.%s.Tensor" % _name] = _binary(_op)
    HANDLERS["aten.%s.Scalar" % _name] = _binary(_op)
    HANDLERS["aten.%s.default" % _name] = _binary(_op)
HANDLERS["aten.max.other"] = _binary("maximum")
HANDLERS["aten.min.other"] = _binary("minimum")
for _name in ("eq", "ne", "lt", "le", "gt", "ge"):
    HANDLERS["aten.%s.Tensor" % _name] = _binary(_name, "promote")
    HANDLERS["aten.%s.Scalar" % _name] = _binary(_name, "promote")


@on("aten.div.Tensor_mode", "aten.div.Scalar_mode")
def _div_mode(cx, args, kwargs, out):
    mode = arg(args, kwargs, 2, "rounding_mode")
    dt = odt(out)
    a, b = cx.tensor(args[0], dt), cx.tensor(args[1], dt)
    if mode is None:
        return cx.binary("div", a, b, dt)
    if mode == "floor":
        return cx.binary("floordiv", a, b, dt)
    if dt not in FLOATS:
        raise Refused("integer division with rounding_mode='trunc'")
    q = cx.binary("div", a, b, dt)
    return cx.where(cx.binary("lt", q, 0.0), cx.unary("ceil", q), cx.unary("floor", q), dt)


@on("aten.rsub.Scalar", "aten.rsub.Tensor")
def _rsub(cx, args, kwargs, out):
    dt = odt(out)
    alpha = kwargs.get("alpha", args[2] if len(args) > 2 else 1)
    x = cx.tensor(args[0], dt)
    if alpha != 1:
        x = cx.binary("mul", x, alpha, dt)
    return cx.broadcast_to(cx.binary("sub", cx.tensor(args[1], dt), x, dt), out.shape)


@on("aten.pow.Tensor_Scalar", "aten.pow.Tensor_Tensor", "aten.pow.Scalar")
def _pow(cx, args, kwargs, out):
    dt = odt(out)
    base, exponent = args[0], args[1]
    if not isinstance(exponent, Value):
        x = cx.tensor(base, dt)
        if exponent == 2:
            return cx.binary("mul", x, x, dt)
        if exponent == 1:
            return x
        if exponent == 0.5 and dt in FLOATS:
            return cx.unary("sqrt", x)
        if exponent == -1 and dt in FLOATS:
            return cx.unary("reciprocal", x)
    return cx.broadcast_to(cx.binary("pow", cx.tensor(base, dt), cx.tensor(exponent, dt), dt),
                           out.shape)


def _logic(op):
    def handler(cx, args, kwargs, out):
        if odt(out) != "bool":
            raise Refused("bitwise op on %s (only bool maps)" % odt(out))
        a = _to_bool(cx, args[0])
        if op == "not":
            return cx.unary("not", a)
        b = _to_bool(cx, args[1])
        r = cx.binary("ne" if op == "xor" else op, a, b, "bool")
        return cx.broadcast_to(r, out.shape)
    return handler


def _to_bool(cx, x):
    if isinstance(x, Value) and x.dtype != "bool":
        return cx.binary("ne", x, 0, x.dtype)
    return cx.tensor(x, "bool")


for _name, _op in {"logical_and": "and", "logical_or": "or", "logical_xor": "xor",
                   "bitwise_and": "and", "bitwise_or": "or", "bitwise_xor": "xor"}.items():
    HANDLERS["aten.%s.default" % _name] = _logic(_op)
    HANDLERS["aten.%s.Tensor" % _name] = _logic(_op)
    HANDLERS["aten.%s.Scalar" % _name] = _logic(_op)
HANDLERS["aten.logical_not.default"] = _logic("not")
HANDLERS["aten.bitwise_not.default"] = _logic("not")


@on("aten.isnan.default")
def _isnan(cx, args, kwargs, out):
    x = cx.tensor(args[0])
    return cx.binary("ne", x, x)


@on("aten.isinf.default")
def _isinf(cx, args, kwargs, out):
    x = cx.tensor(args[0])
    return cx.binary("eq", cx.unary("abs", x), float("inf"))


@on("aten.where.self", "aten.where.ScalarSelf", "aten.where.ScalarOther", "aten.where.Scalar")
def _where(cx, args, kwargs, out):
    return cx.broadcast_to(cx.where(args[0], args[1], args[2], odt(out)), out.shape)


@on("aten.masked_fill.Scalar", "aten.masked_fill.Tensor")
def _masked_fill(cx, args, kwargs, out):
    return cx.broadcast_to(cx.where(args[1], args[2], args[0], odt(out)), out.shape)


# -- casts, copies, creation ------------------------------------------------

@on("aten._to_copy.default", "aten.to.dtype", "aten.to.dtype_layout", "aten.to.device",
    "prims.convert_element_type.default", "aten.type_as.default", "aten._to_dtype.default")
def _cast(cx, args, kwargs, out):
    return cx.tensor(args[0], odt(out))


@on("aten.clone.default", "aten.contiguous.default", "aten.alias.default", "aten.detach.default",
    "aten.lift_fresh_copy.default", "aten.lift_fresh.default", "aten.lift.default",
    "aten.view_as.default", "aten.positive.default", "aten.dropout.default")
def _identity(cx, args, kwargs, out):
    if "dropout" in cx._current_op and arg(args, kwargs, 2, "train", False):
        raise Refused("dropout in training mode is random")
    return cx.tensor(args[0])


@on("aten.copy.default")
def _copy(cx, args, kwargs, out):
    return cx.broadcast_to(cx.tensor(args[1], odt(out)), out.shape)


def _fill_like(value_of):
    def handler(cx, args, kwargs, out):
        return cx.full(value_of(args, kwargs), odt(out), out.shape)
    return handler


for _n in ("aten.zeros.default", "aten.zeros_like.default", "aten.new_zeros.default",
           "aten.empty.memory_format", "aten.empty_like.default", "aten.new_empty.default",
           "aten.empty_strided.default", "aten.new_empty_strided.default", "aten.zero.default",
           "aten.empty.default"):
    HANDLERS[_n] = _fill_like(lambda a, k: 0)
for _n in ("aten.ones.default", "aten.ones_like.default", "aten.new_ones.default"):
    HANDLERS[_n] = _fill_like(lambda a, k: 1)
HANDLERS["aten.full.default"] = _fill_like(lambda a, k: arg(a, k, 1, "fill_value"))
HANDLERS["aten.full_like.default"] = _fill_like(lambda a, k: arg(a, k, 1, "fill_value"))
HANDLERS["aten.new_full.default"] = _fill_like(lambda a, k: arg(a, k, 2, "fill_value"))
HANDLERS["aten.scalar_tensor.default"] = _fill_like(lambda a, k: arg(a, k, 0, "s"))
HANDLERS["aten.fill.Scalar"] = _fill_like(lambda a, k: arg(a, k, 1, "value"))


@on("aten.fill.Tensor")
def _fill_tensor(cx, args, kwargs, out):
    return cx.broadcast_to(cx.tensor(args[1], odt(out)), out.shape)


@on("aten.arange.default", "aten.arange.start", "aten.arange.start_step", "prims.iota.default")
def _arange(cx, args, kwargs, out):
    dt = odt(out)
    n = out.shape[0]
    if dt in ("i32", "i64") and "iota" not in cx._current_op:
        floats = [a for a in args if isinstance(a, float)]
        if not floats:
            vals = out.to("cpu")
            start = int(vals[0]) if n else 0
            step = int(vals[1] - vals[0]) if n > 1 else 1
            x = cx.iota(0, dt, [n])
            if step != 1:
                x = cx.binary("mul", x, step, dt)
            if start != 0:
                x = cx.binary("add", x, start, dt)
            return x
    return cx.constant(out)  # exact values torch computed (floats, iota)


# -- layout ------------------------------------------------------------------

@on("aten.view.default", "aten._unsafe_view.default", "aten.reshape.default",
    "aten._reshape_alias.default", "prims.reshape.default")
def _view(cx, args, kwargs, out):
    return cx.reshape(cx.tensor(args[0]), out.shape)


@on("aten.view.dtype")
def _view_dtype(cx, args, kwargs, out):
    x = cx.tensor(args[0])
    if x.dtype != odt(out):
        raise Refused("a bit cast (view as another dtype)")
    return x


@on("aten.flatten.using_ints", "aten.unflatten.int", "aten.squeeze.default", "aten.squeeze.dim",
    "aten.squeeze.dims", "aten.unsqueeze.default")
def _reshape_like(cx, args, kwargs, out):
    x = cx.tensor(args[0])
    name = cx._current_op
    if name.startswith("aten.unsqueeze"):
        return cx.unsqueeze(x, args[1])
    if name.startswith("aten.squeeze"):
        axes = list(range(x.rank)) if len(args) < 2 else dims_of(args[1], x.rank)
        return cx.squeeze(x, axes)
    return cx.reshape(x, out.shape)


@on("aten.permute.default")
def _permute(cx, args, kwargs, out):
    x = cx.tensor(args[0])
    return cx.transpose(x, dims_of(args[1], x.rank) if x.rank else [])


@on("aten.t.default", "aten.transpose.int", "aten.numpy_T.default", "aten.swapaxes.default")
def _transpose(cx, args, kwargs, out):
    x = cx.tensor(args[0])
    if x.rank < 2:
        return x
    if len(args) >= 3:
        a, b = norm_dim(args[1], x.rank), norm_dim(args[2], x.rank)
    else:
        a, b = x.rank - 2, x.rank - 1
    perm = list(range(x.rank))
    perm[a], perm[b] = perm[b], perm[a]
    return cx.transpose(x, perm)


@on("aten.expand.default", "aten.expand_as.default", "aten.broadcast_to.default",
    "prims.broadcast_in_dim.default")
def _expand(cx, args, kwargs, out):
    x = cx.tensor(args[0])
    if cx._current_op.startswith("prims.broadcast_in_dim"):
        dims = args[2]
        shape = [1] * len(out.shape)
        for i, d in enumerate(dims):
            shape[d] = x.shape[i]
        x = cx.reshape(x, shape)
    return cx.broadcast_to(x, out.shape)


def _clamp_index(i, size, default):
    if i is None:
        return default
    i = int(i)
    if i < 0:
        i += size
    return min(max(i, 0), size)


@on("aten.slice.Tensor")
def _slice(cx, args, kwargs, out):
    x = cx.tensor(args[0])
    dim = norm_dim(arg(args, kwargs, 1, "dim", 0), x.rank)
    size = x.shape[dim]
    start = _clamp_index(arg(args, kwargs, 2, "start"), size, 0)
    end = _clamp_index(arg(args, kwargs, 3, "end"), size, size)
    step = int(arg(args, kwargs, 4, "step", 1))
    return cx.slice(x, dim, start, max(start, end), step)


@on("aten.select.int")
def _select(cx, args, kwargs, out):
    x = cx.tensor(args[0])
    dim = norm_dim(args[1], x.rank)
    i = args[2] % x.shape[dim]
    return cx.squeeze(cx.slice(x, dim, i, i + 1), [dim])


@on("aten.split.Tensor", "aten.split_with_sizes.default", "aten.chunk.default",
    "aten.unbind.int", "aten.split.sizes")
def _split(cx, args, kwargs, out):
    x = cx.tensor(args[0])
    name = cx._current_op
    dim = norm_dim(arg(args, kwargs, 2 if "unbind" not in name else 1, "dim", 0), x.rank)
    pieces, start = [], 0
    for t in out:
        n = t.shape[dim] if "unbind" not in name else 1
        piece = cx.slice(x, dim, start, start + n)
        pieces.append(cx.squeeze(piece, [dim]) if "unbind" in name else piece)
        start += n
    return pieces


@on("aten.cat.default", "aten.concat.default", "aten.stack.default")
def _cat(cx, args, kwargs, out):
    dt = odt(out)
    xs = [cx.tensor(t, dt) for t in args[0]]
    if cx._current_op.startswith("aten.stack"):
        dim = norm_dim(arg(args, kwargs, 1, "dim", 0), xs[0].rank + 1)
        return cx.concat([cx.unsqueeze(x, dim) for x in xs], dim)
    xs = [x for x in xs if not (x.rank == 1 and x.shape[0] == 0 and len(out.shape) != 1)]
    dim = norm_dim(arg(args, kwargs, 1, "dim", 0), xs[0].rank)
    return cx.concat(xs, dim)


@on("aten.slice_scatter.default")
def _slice_scatter(cx, args, kwargs, out):
    base, src = cx.tensor(args[0], odt(out)), cx.tensor(args[1], odt(out))
    dim = norm_dim(arg(args, kwargs, 2, "dim", 0), base.rank)
    size = base.shape[dim]
    start = _clamp_index(arg(args, kwargs, 3, "start"), size, 0)
    end = _clamp_index(arg(args, kwargs, 4, "end"), size, size)
    if int(arg(args, kwargs, 5, "step", 1)) != 1:
        raise Refused("slice_scatter with a step")
    parts = []
    if start > 0:
        parts.append(cx.slice(base, dim, 0, start))
    parts.append(src)
    if end < size:
        parts.append(cx.slice(base, dim, end, size))
    return cx.concat(parts, dim)


@on("aten.select_scatter.default")
def _select_scatter(cx, args, kwargs, out):
    base, src = cx.tensor(args[0], odt(out)), cx.tensor(args[1], odt(out))
    dim = norm_dim(args[2], base.rank)
    i = args[3] % base.shape[dim]
    parts = []
    if i > 0:
        parts.append(cx.slice(base, dim, 0, i))
    parts.append(cx.unsqueeze(src, dim))
    if i + 1 < base.shape[dim]:
        parts.append(cx.slice(base, dim, i + 1, base.shape[dim]))
    return cx.concat(parts, dim)


@on("aten.constant_pad_nd.default")
def _pad(cx, args, kwargs, out):
    x = cx.tensor(args[0])
    pad = list(arg(args, kwargs, 1, "pad"))
    value = float(arg(args, kwargs, 2, "value", 0))
    begins, ends = [0] * x.rank, [0] * x.rank
    for k in range(len(pad) // 2):
        axis = x.rank - 1 - k
        begins[axis], ends[axis] = pad[2 * k], pad[2 * k + 1]
    for axis in range(x.rank):  # negative padding crops
        if begins[axis] < 0 or ends[axis] < 0:
            x = cx.slice(x, axis, max(0, -begins[axis]), x.shape[axis] - max(0, -ends[axis]))
            begins[axis], ends[axis] = max(0, begins[axis]), max(0, ends[axis])
    if not any(begins) and not any(ends):
        return x
    shape = [d + b + e for d, b, e in zip(x.shape, begins, ends)]
    return cx.op("pad", [x], {"pads": begins + ends, "value": value}, x.dtype, shape)


@on("aten.as_strided.default", "aten.as_strided_copy.default")
def _as_strided(cx, args, kwargs, out):
    # Explicit: a gather from the flattened base at each element's storage offset.
    x = cx.tensor(args[0])
    size, stride = list(args[1]), list(args[2])
    offset = arg(args, kwargs, 3, "storage_offset") or 0
    real_base = cx._current_real_args[0]
    if not real_base.is_contiguous() or real_base.storage_offset() != 0:
        raise Refused("as_strided of a non-contiguous or offset base")
    idx = np.full(size, offset, dtype=np.int64) if size else np.array(offset, dtype=np.int64)
    for d, (n, s) in enumerate(zip(size, stride)):
        shape = [1] * len(size)
        shape[d] = n
        idx = idx + (np.arange(n, dtype=np.int64) * s).reshape(shape)
    flat = cx.reshape(x, [int(np.prod(x.shape))])
    index = cx.constant(torch.from_numpy(np.ascontiguousarray(idx)))
    return cx.gather(flat, index, 0)


# -- indexing ----------------------------------------------------------------

@on("aten.index_select.default")
def _index_select(cx, args, kwargs, out):
    x = cx.tensor(args[0])
    dim = norm_dim(args[1], x.rank)
    return cx.reshape(cx.gather(x, cx.tensor(args[2]), dim), out.shape)


@on("aten.embedding.default")
def _embedding(cx, args, kwargs, out):
    return cx.gather(cx.tensor(args[0]), cx.tensor(args[1]), 0)


@on("aten.gather.default")
def _torch_gather(cx, args, kwargs, out):
    # out[i..] = x[i.. with index[i..] on dim]: a flat gather at computed offsets.
    x = cx.tensor(args[0])
    dim = norm_dim(args[1], x.rank)
    index = cx.tensor(args[2], "i64")
    strides = [int(np.prod(x.shape[d + 1:])) for d in range(x.rank)]
    flat_index = cx.binary("mul", index, strides[dim], "i64") if strides[dim] != 1 else index
    for d in range(x.rank):
        if d != dim and index.shape[d] > 1:
            term = cx.iota(d, "i64", index.shape)
            if strides[d] != 1:
                term = cx.binary("mul", term, strides[d], "i64")
            flat_index = cx.binary("add", flat_index, term, "i64")
    flat = cx.reshape(x, [int(np.prod(x.shape))])
    return cx.gather(flat, flat_index, 0)


@on("aten.index.Tensor", "aten._unsafe_index.Tensor")
def _index(cx, args, kwargs, out):
    x = cx.tensor(args[0])
    indices = list(args[1])
    used = [i for i, t in enumerate(indices) if t is not None]
    for i in used:
        if not isinstance(indices[i], Value) or indices[i].dtype not in ("i32", "i64"):
            raise Refused("index with a boolean mask or a non-tensor index")
    if used != list(range(used[0], used[-1] + 1)):
        raise Refused("index with non-adjacent index tensors")
    a = used[0]
    if len(used) == 1:
        return cx.reshape(cx.gather(x, indices[a], a), out.shape)
    # Several adjacent index tensors: merge their dims, gather once at the flat offset.
    sizes = [x.shape[i] for i in used]
    flat_index = None
    for k, i in enumerate(used):
        idx = cx.tensor(indices[i], "i64")
        idx = cx.where(cx.binary("lt", idx, 0, "i64"), cx.binary("add", idx, sizes[k], "i64"),
                       idx, "i64")
        stride = int(np.prod(sizes[k + 1:]))
        term = cx.binary("mul", idx, stride, "i64") if stride != 1 else idx
        flat_index = term if flat_index is None else cx.binary("add", flat_index, term, "i64")
    merged = list(x.shape[:a]) + [int(np.prod(sizes))] + list(x.shape[used[-1] + 1:])
    return cx.reshape(cx.gather(cx.reshape(x, merged), flat_index, a), out.shape)


# -- reductions --------------------------------------------------------------

def _reduction(op):
    def handler(cx, args, kwargs, out):
        dt = odt(out)
        x = cx.tensor(args[0])
        dims = arg(args, kwargs, 1, "dim")
        keepdim = bool(arg(args, kwargs, 2, "keepdim", False))
        if op in ("reduce_sum", "reduce_mean") or x.dtype != dt:
            x = cx.cast(x, dt)
        return cx.reshape(cx.reduce(op, x, dims_of(dims, x.rank), keepdim), out.shape)
    return handler


HANDLERS["aten.sum.dim_IntList"] = _reduction("reduce_sum")
HANDLERS["aten.sum.default"] = _reduction("reduce_sum")
HANDLERS["aten.mean.dim"] = _reduction("reduce_mean")
HANDLERS["aten.mean.default"] = _reduction("reduce_mean")
HANDLERS["aten.amax.default"] = _reduction("reduce_max")
HANDLERS["aten.amin.default"] = _reduction("reduce_min")
HANDLERS["aten.max.default"] = _reduction("reduce_max")
HANDLERS["aten.min.default"] = _reduction("reduce_min")
HANDLERS["prims.sum.default"] = _reduction("reduce_sum")


@on("aten.any.default", "aten.any.dim", "aten.any.dims", "aten.all.default", "aten.all.dim")
def _any_all(cx, args, kwargs, out):
    x = _to_bool(cx, args[0])
    dims = arg(args, kwargs, 1, "dim")
    keepdim = bool(arg(args, kwargs, 2, "keepdim", False))
    op = "reduce_max" if "any" in cx._current_op else "reduce_min"
    r = cx.reduce(op, cx.cast(x, "i32"), dims_of(dims, x.rank), keepdim)
    return cx.reshape(cx.cast(r, "bool"), out.shape)


@on("aten.max.dim", "aten.min.dim")
def _max_dim(cx, args, kwargs, out):
    x = cx.tensor(args[0])
    dim = norm_dim(args[1], x.rank)
    keepdim = bool(arg(args, kwargs, 2, "keepdim", False))
    is_max = cx._current_op.startswith("aten.max")
    values = cx.reduce("reduce_max" if is_max else "reduce_min", x, [dim], keepdim)
    src = x if is_max else cx.unary("neg", x)
    indices = Lazy(lambda: cx.op("argmax", [src], {"axis": dim, "keepdim": keepdim}, "i64",
                                 out[1].shape))
    return (values, indices)


@on("aten.argmax.default", "aten.argmin.default")
def _argmax(cx, args, kwargs, out):
    x = cx.tensor(args[0])
    dim = arg(args, kwargs, 1, "dim")
    keepdim = bool(arg(args, kwargs, 2, "keepdim", False))
    if "argmin" in cx._current_op:
        if x.dtype not in FLOATS:
            raise Refused("argmin of integers")
        x = cx.unary("neg", x)
    if dim is None:
        x = cx.reshape(x, [int(np.prod(x.shape))])
        dim = 0
    r = cx.op("argmax", [x], {"axis": norm_dim(dim, x.rank), "keepdim": keepdim}, "i64",
              out.shape if dim is not None and arg(args, kwargs, 1, "dim") is not None else
              ([1] if keepdim else []))
    return cx.reshape(r, out.shape)


def _variance(cx, x, dims, correction, keepdim):
    m = cx.reduce("reduce_mean", x, dims, True)
    d = cx.binary("sub", x, m)
    s = cx.reduce("reduce_sum", cx.binary("mul", d, d), dims, keepdim)
    n = int(np.prod([x.shape[i] for i in dims])) if dims else 1
    return cx.binary("div", s, float(max(n - correction, 0)))


@on("aten.var.correction", "aten.var.dim", "aten.std.correction", "aten.std.dim",
    "aten.var_mean.correction", "aten.var.default", "aten.std.default")
def _var(cx, args, kwargs, out):
    name = cx._current_op
    x = cx.tensor(args[0])
    dims = dims_of(arg(args, kwargs, 1, "dim"), x.rank)
    if name.endswith(".dim") or name.endswith(".default"):
        unbiased = arg(args, kwargs, 2 if name.endswith(".dim") else 1, "unbiased", True)
        correction = 1 if unbiased else 0
        keepdim = bool(arg(args, kwargs, 3, "keepdim", False)) if name.endswith(".dim") else False
    else:
        correction = kwargs.get("correction")
        correction = 1 if correction is None else correction
        keepdim = bool(kwargs.get("keepdim", False))
    v = _variance(cx, x, dims, correction, keepdim)
    if "std" in name:
        v = cx.unary("sqrt", v)
    if "var_mean" in name:
        return (v, cx.reduce("reduce_mean", x, dims, keepdim))
    return v


@on("aten.cumsum.default")
def _cumsum(cx, args, kwargs, out):
    x = cx.tensor(args[0], odt(out))
    return cx.op("cumsum", [x], {"axis": norm_dim(args[1], x.rank), "exclusive": False,
                                 "reverse": False}, x.dtype, x.shape)


@on("aten.logsumexp.default")
def _logsumexp(cx, args, kwargs, out):
    x = cx.tensor(args[0], odt(out))
    dims = dims_of(args[1], x.rank)
    keepdim = bool(arg(args, kwargs, 2, "keepdim", False))
    m = cx.reduce("reduce_max", x, dims, True)
    s = cx.reduce("reduce_sum", cx.unary("exp", cx.binary("sub", x, m)), dims, True)
    r = cx.binary("add", cx.unary("log", s), m)
    return cx.reshape(r, out.shape)


# -- matmul and convolution ------------------------------------------------

@on("aten.mm.default", "aten.bmm.default", "aten.matmul.default")
def _mm(cx, args, kwargs, out):
    dt = odt(out)
    a, b = cx.tensor(args[0], dt), cx.tensor(args[1], dt)
    a1, b1 = a.rank == 1, b.rank == 1
    if a1:
        a = cx.unsqueeze(a, 0)
    if b1:
        b = cx.unsqueeze(b, 1)
    return cx.reshape(cx.matmul(a, b), out.shape)


HANDLERS["aten.mv.default"] = _mm
HANDLERS["aten.dot.default"] = _mm


@on("aten.addmm.default", "aten.baddbmm.default", "aten.addmv.default")
def _addmm(cx, args, kwargs, out):
    dt = odt(out)
    bias, a, b = cx.tensor(args[0], dt), cx.tensor(args[1], dt), cx.tensor(args[2], dt)
    beta, alpha = kwargs.get("beta", 1), kwargs.get("alpha", 1)
    if b.rank == 1:
        p = cx.reshape(cx.matmul(a, cx.unsqueeze(b, 1)), out.shape)
    else:
        p = cx.matmul(a, b)
    if alpha != 1:
        p = cx.binary("mul", p, alpha, dt)
    if beta == 0:
        return p
    if beta != 1:
        bias = cx.binary("mul", bias, beta, dt)
    return cx.broadcast_to(cx.binary("add", bias, p, dt), out.shape)


@on("aten.linear.default")
def _linear(cx, args, kwargs, out):
    dt = odt(out)
    x, w = cx.tensor(args[0], dt), cx.tensor(args[1], dt)
    b = arg(args, kwargs, 2, "bias")
    y = cx.matmul(x if x.rank >= 2 else cx.unsqueeze(x, 0), cx.transpose(w, [1, 0]))
    y = cx.reshape(y, out.shape)
    return cx.binary("add", y, cx.tensor(b, dt), dt) if b is not None else y


@on("aten.convolution.default", "aten._convolution.default")
def _convolution(cx, args, kwargs, out):
    dt = odt(out)
    x, w = cx.tensor(args[0], dt), cx.tensor(args[1], dt)
    bias, stride, padding, dilation, transposed = args[2], args[3], args[4], args[5], args[6]
    groups = args[8]
    if transposed:
        raise Refused("transposed convolution")
    one_d = x.rank == 3
    if one_d:  # conv1d as conv2d over [N, C, 1, L]
        x, w = cx.unsqueeze(x, 2), cx.unsqueeze(w, 2)
        stride, padding, dilation = [1] + list(stride), [0] + list(padding), [1] + list(dilation)
    if x.rank != 4:
        raise Refused("convolution of rank %d (conv1d and conv2d map)" % x.rank)
    stride, padding, dilation = _pair(stride), _pair(padding), _pair(dilation)
    shape = [x.shape[0], w.shape[0]] + [
        (x.shape[2 + i] + 2 * padding[i] - dilation[i] * (w.shape[2 + i] - 1) - 1) // stride[i] + 1
        for i in range(2)]
    y = cx.op("conv2d", [x, w], {"strides": stride, "pads": padding + padding,
                                 "dilations": dilation, "groups": int(groups)}, dt, shape)
    if bias is not None:
        y = cx.binary("add", y, cx.reshape(cx.tensor(bias, dt), [1, w.shape[0], 1, 1]), dt)
    return cx.reshape(y, out.shape)


def _pair(v):
    v = list(v) if isinstance(v, (list, tuple)) else [v]
    return [int(v[0]), int(v[-1])] if len(v) else [1, 1]


def _pool_input(cx, x):
    return cx.unsqueeze(x, 0) if x.rank == 3 else x


@on("aten.max_pool2d_with_indices.default", "aten.max_pool2d.default")
def _max_pool(cx, args, kwargs, out):
    values_out = out[0] if isinstance(out, tuple) else out
    x = _pool_input(cx, cx.tensor(args[0]))
    kernel = _pair(args[1])
    stride = _pair(arg(args, kwargs, 2, "stride") or kernel)
    padding = _pair(arg(args, kwargs, 3, "padding", 0))
    dilation = _pair(arg(args, kwargs, 4, "dilation", 1))
    shape = [x.shape[0], x.shape[1]] + list(values_out.shape[-2:])
    # ceil_mode's last windows run past the padding: more padding at the end, which
    # never wins a max, gives them.
    extra = [max(0, (shape[2 + i] - 1) * stride[i] + dilation[i] * (kernel[i] - 1) + 1
                 - x.shape[2 + i] - 2 * padding[i]) for i in range(2)]
    y = cx.op("max_pool2d", [x], {"kernel": kernel, "strides": stride,
                                  "pads": padding + [padding[0] + extra[0], padding[1] + extra[1]],
                                  "dilations": dilation}, x.dtype, shape)
    y = cx.reshape(y, values_out.shape)
    if not isinstance(out, tuple):
        return y
    return (y, Lazy(lambda: cx.reshape(
        _max_pool_indices(cx, x, kernel, stride, padding, dilation, shape[2:], extra),
        out[1].shape)))


@on("aten.avg_pool2d.default")
def _avg_pool(cx, args, kwargs, out):
    x = _pool_input(cx, cx.tensor(args[0]))
    kernel = _pair(args[1])
    stride = _pair(arg(args, kwargs, 2, "stride") or kernel)
    padding = _pair(arg(args, kwargs, 3, "padding", 0))
    count_include_pad = bool(arg(args, kwargs, 5, "count_include_pad", True))
    if arg(args, kwargs, 6, "divisor_override") is not None:
        raise Refused("avg_pool2d with divisor_override")
    shape = [x.shape[0], x.shape[1]] + [
        (x.shape[2 + i] + 2 * padding[i] - kernel[i]) // stride[i] + 1 for i in range(2)]
    if shape[2:] != list(out.shape[-2:]):
        raise Refused("avg_pool2d with ceil_mode changing the output size")
    y = cx.op("avg_pool2d", [x], {"kernel": kernel, "strides": stride, "pads": padding + padding,
                                  "count_include_pad": count_include_pad}, x.dtype, shape)
    return cx.reshape(y, out.shape)


@on("aten._adaptive_avg_pool2d.default", "aten.adaptive_avg_pool2d.default")
def _adaptive_avg_pool(cx, args, kwargs, out):
    x = _pool_input(cx, cx.tensor(args[0]))
    oh, ow = out.shape[-2], out.shape[-1]
    h, w = x.shape[2], x.shape[3]
    if h % oh or w % ow:  # windows of different sizes: averaging matrices, A_h x A_w^T
        rows = cx.cast(cx.constant(_adaptive_matrix(h, oh)), x.dtype)
        cols = cx.cast(cx.constant(_adaptive_matrix(w, ow).t().contiguous()), x.dtype)
        return cx.reshape(cx.matmul(cx.matmul(rows, x), cols), out.shape)
    if oh == 1 and ow == 1:
        return cx.reshape(cx.reduce("reduce_mean", x, [2, 3], True), out.shape)
    kernel = [h // oh, w // ow]
    y = cx.op("avg_pool2d", [x], {"kernel": kernel, "strides": kernel, "pads": [0, 0, 0, 0],
                                  "count_include_pad": True}, x.dtype, [x.shape[0], x.shape[1], oh, ow])
    return cx.reshape(y, out.shape)


# -- normalizations and their gradients ---------------------------------------

@on("aten._softmax.default", "aten._log_softmax.default", "aten.softmax.int",
    "aten.log_softmax.int")
def _softmax(cx, args, kwargs, out):
    dt = odt(out)
    x = cx.tensor(args[0], dt)
    axis = norm_dim(args[1], x.rank)
    op = "log_softmax" if "log_softmax" in cx._current_op else "softmax"
    if x.rank == 0:
        return cx.full(0.0 if op == "log_softmax" else 1.0, dt, ())
    return cx.op(op, [x], {"axis": axis}, dt, x.shape)


@on("aten._softmax_backward_data.default")
def _softmax_backward(cx, args, kwargs, out):
    dt = odt(out)
    g, y = cx.tensor(args[0], dt), cx.tensor(args[1], dt)
    axis = norm_dim(args[2], y.rank)
    s = cx.reduce("reduce_sum", cx.binary("mul", g, y), [axis], True)
    return cx.binary("mul", y, cx.binary("sub", g, s))


@on("aten._log_softmax_backward_data.default")
def _log_softmax_backward(cx, args, kwargs, out):
    dt = odt(out)
    g, y = cx.tensor(args[0], dt), cx.tensor(args[1], dt)
    axis = norm_dim(args[2], y.rank)
    s = cx.reduce("reduce_sum", g, [axis], True)
    return cx.binary("sub", g, cx.binary("mul", cx.unary("exp", y), s))


def _norm_stats(cx, x, axes, eps):
    mean = cx.reduce("reduce_mean", x, axes, True)
    var = _variance(cx, x, axes, 0, True)
    rstd = cx.unary("rsqrt", cx.binary("add", var, float(eps)))
    return mean, rstd


@on("aten.native_layer_norm.default")
def _native_layer_norm(cx, args, kwargs, out):
    dt = odt(out[0])
    x = cx.tensor(args[0], dt)
    k = len(args[1])
    w, b, eps = args[2], args[3], float(args[4])
    axes = list(range(x.rank - k, x.rank))
    inner = int(np.prod(x.shape[x.rank - k:]))
    x2 = cx.reshape(x, list(x.shape[:x.rank - k]) + [inner])
    w2 = cx.reshape(cx.tensor(w, dt), [inner]) if w is not None else cx.full(1.0, dt, [inner])
    b2 = cx.reshape(cx.tensor(b, dt), [inner]) if b is not None else cx.full(0.0, dt, [inner])
    y = cx.op("layer_norm", [x2, w2, b2], {"axis": x2.rank - 1, "eps": eps}, dt, x2.shape)
    y = cx.reshape(y, x.shape)
    stats = {}

    def stat(i):
        if not stats:
            xs = cx.cast(x, odt(out[1]))
            stats["m"], stats["r"] = _norm_stats(cx, xs, axes, eps)
        return stats["m"] if i == 1 else stats["r"]
    return (y, Lazy(lambda: stat(1)), Lazy(lambda: stat(2)))


@on("aten.native_layer_norm_backward.default")
def _native_layer_norm_backward(cx, args, kwargs, out):
    dt = odt(next(t for t in out if t is not None))
    g, x = cx.tensor(args[0], dt), cx.tensor(args[1], dt)
    k = len(args[2])
    mean, rstd, w = cx.tensor(args[3], dt), cx.tensor(args[4], dt), args[5]
    mask = list(args[7])
    axes = list(range(x.rank - k, x.rank))
    batch_axes = list(range(x.rank - k))
    n = float(np.prod(x.shape[x.rank - k:]))
    x_hat = cx.binary("mul", cx.binary("sub", x, mean), rstd)
    results = []
    if mask[0]:
        gw = cx.binary("mul", g, cx.tensor(w, dt)) if w is not None else g
        a = cx.binary("mul", gw, n)
        a = cx.binary("sub", a, cx.reduce("reduce_sum", gw, axes, True))
        a = cx.binary("sub", a, cx.binary("mul", x_hat,
                                          cx.reduce("reduce_sum", cx.binary("mul", gw, x_hat),
                                                    axes, True)))
        results.append(cx.binary("mul", a, cx.binary("div", rstd, n)))
    else:
        results.append(None)
    if mask[1] and w is not None:
        results.append(cx.reshape(cx.reduce("reduce_sum", cx.binary("mul", g, x_hat), batch_axes,
                                            False), out[1].shape))
    else:
        results.append(None)
    if mask[2] and args[6] is not None:
        results.append(cx.reshape(cx.reduce("reduce_sum", g, batch_axes, False), out[2].shape))
    else:
        results.append(None)
    return tuple(results)


def _channel(cx, v, dt, rank):
    return cx.reshape(cx.tensor(v, dt), [1, -1] + [1] * (rank - 2))


@on("aten.native_batch_norm.default", "aten._native_batch_norm_legit.default",
    "aten._native_batch_norm_legit_functional.default",
    "aten._native_batch_norm_legit_no_training.default", "aten._native_batch_norm_legit.no_stats")
def _batch_norm(cx, args, kwargs, out):
    name = cx._current_op
    dt = odt(out[0])
    x = cx.tensor(args[0], dt)
    w, b = args[1], args[2]
    if name.endswith("no_stats"):
        rm = rv = None
        training, momentum, eps = args[3], args[4], args[5]
    elif name.endswith("no_training.default"):
        rm, rv, training, momentum, eps = args[3], args[4], False, args[5], args[6]
    else:
        rm, rv, training, momentum, eps = args[3], args[4], args[5], args[6], args[7]
    axes = [0] + list(range(2, x.rank))
    if training:
        mean, rstd = _norm_stats(cx, x, axes, eps)
    else:
        mean = _channel(cx, rm, dt, x.rank)
        rstd = cx.unary("rsqrt", cx.binary("add", _channel(cx, rv, dt, x.rank), float(eps)))
    y = cx.binary("mul", cx.binary("sub", x, mean), rstd)
    if w is not None:
        y = cx.binary("mul", y, _channel(cx, w, dt, x.rank))
    if b is not None:
        y = cx.binary("add", y, _channel(cx, b, dt, x.rank))
    results = [y]
    for t, v in ((out[1], mean), (out[2], rstd)):
        results.append(Lazy(lambda t=t, v=v: cx.reshape(cx.cast(v, odt(t)), t.shape)
                            if int(np.prod(t.shape)) == x.shape[1] or not t.shape
                            else _refuse("batch norm statistics of an unexpected size")))
    if len(out) == 5:  # the functional form also returns the updated running stats
        n = int(np.prod([x.shape[i] for i in axes]))

        def running(i):
            old = cx.tensor(args[3 + i], odt(out[3 + i]))
            if not training:
                return old
            if i == 0:
                new = cx.reshape(cx.cast(mean, old.dtype), old.shape)
            else:
                var = _variance(cx, x, axes, 0, False)
                new = cx.binary("mul", cx.cast(var, old.dtype), n / max(n - 1, 1))
            return cx.binary("add", cx.binary("mul", old, 1.0 - momentum),
                             cx.binary("mul", new, float(momentum)))
        results += [Lazy(lambda: running(0)), Lazy(lambda: running(1))]
    return tuple(results)


def _refuse(reason):
    raise Refused(reason)


@on("aten.threshold_backward.default")
def _threshold_backward(cx, args, kwargs, out):
    dt = odt(out)
    g, x = cx.tensor(args[0], dt), cx.tensor(args[1], dt)
    return cx.broadcast_to(cx.where(cx.binary("le", x, args[2], dt), 0.0, g, dt), out.shape)


@on("aten.threshold.default")
def _threshold(cx, args, kwargs, out):
    dt = odt(out)
    x = cx.tensor(args[0], dt)
    return cx.where(cx.binary("le", x, args[1], dt), args[2], x, dt)


@on("aten.tanh_backward.default")
def _tanh_backward(cx, args, kwargs, out):
    dt = odt(out)
    g, y = cx.tensor(args[0], dt), cx.tensor(args[1], dt)
    return cx.binary("mul", g, cx.binary("sub", 1.0, cx.binary("mul", y, y), dt))


@on("aten.sigmoid_backward.default")
def _sigmoid_backward(cx, args, kwargs, out):
    dt = odt(out)
    g, y = cx.tensor(args[0], dt), cx.tensor(args[1], dt)
    return cx.binary("mul", g, cx.binary("mul", y, cx.binary("sub", 1.0, y, dt)))


@on("aten.gelu_backward.default")
def _gelu_backward(cx, args, kwargs, out):
    dt = odt(out)
    g, x = cx.tensor(args[0], dt), cx.tensor(args[1], dt)
    if arg(args, kwargs, 2, "approximate", "none") != "none":
        raise Refused("gelu_backward with approximate='tanh'")
    cdf = cx.binary("mul", cx.binary("add", cx.unary("erf", cx.binary("mul", x, math.sqrt(0.5))),
                                     1.0), 0.5)
    pdf = cx.binary("mul", cx.unary("exp", cx.binary("mul", cx.binary("mul", x, x), -0.5)),
                    1.0 / math.sqrt(2.0 * math.pi))
    return cx.binary("mul", g, cx.binary("add", cdf, cx.binary("mul", x, pdf)))


@on("aten.mse_loss.default")
def _mse_loss(cx, args, kwargs, out):
    dt = odt(out)
    a, b = cx.tensor(args[0], dt), cx.tensor(args[1], dt)
    reduction = arg(args, kwargs, 2, "reduction", 1)
    d = cx.binary("sub", a, b)
    sq = cx.binary("mul", d, d)
    if reduction == 0:
        return sq
    return cx.reduce("reduce_mean" if reduction == 1 else "reduce_sum", sq,
                     list(range(sq.rank)), False)


@on("aten.mse_loss_backward.default")
def _mse_loss_backward(cx, args, kwargs, out):
    dt = odt(out)
    g, a, b = cx.tensor(args[0], dt), cx.tensor(args[1], dt), cx.tensor(args[2], dt)
    reduction = arg(args, kwargs, 3, "reduction", 1)
    scale = 2.0 / float(np.prod(out.shape)) if reduction == 1 else 2.0
    return cx.broadcast_to(cx.binary("mul", cx.binary("mul", cx.binary("sub", a, b), g), scale),
                           out.shape)


@on("aten.repeat.default")
def _repeat(cx, args, kwargs, out):
    x = cx.tensor(args[0])
    reps = list(args[1])
    x = cx.reshape(x, [1] * (len(reps) - x.rank) + list(x.shape))
    inter, wide = [], []
    for r_, d in zip(reps, x.shape):
        inter += [1, d]
        wide += [r_, d]
    return cx.reshape(cx.broadcast_to(cx.reshape(x, inter), wide), out.shape)


@on("aten.nll_loss_forward.default")
def _nll_loss_forward(cx, args, kwargs, out):
    dt = odt(out[0])
    x, target = cx.tensor(args[0], dt), cx.tensor(args[1], "i64")
    weight, reduction, ignore = args[2], args[3], args[4]
    if weight is not None or x.rank != 2:
        raise Refused("nll_loss with class weights or on other than [N, C] scores")
    valid = cx.binary("ne", target, ignore, "i64")
    safe = cx.where(valid, target, 0, "i64")
    picked = cx.squeeze(_torch_gather(cx, [x, 1, cx.unsqueeze(safe, 1)], {}, None), [1])
    losses = cx.where(valid, cx.unary("neg", picked), 0.0, dt)
    count = cx.reduce("reduce_sum", cx.cast(valid, dt), [0], False)
    if reduction == 0:
        return (losses, Lazy(lambda: cx.full(0.0, dt, ())))
    total = cx.reduce("reduce_sum", losses, [0], False)
    if reduction == 1:
        total = cx.binary("div", total, count)
    return (total, count)


@on("aten.nll_loss_backward.default")
def _nll_loss_backward(cx, args, kwargs, out):
    dt = odt(out)
    g, x, target = cx.tensor(args[0], dt), cx.tensor(args[1], dt), cx.tensor(args[2], "i64")
    weight, reduction, ignore, total = args[3], args[4], args[5], args[6]
    if weight is not None or x.rank != 2:
        raise Refused("nll_loss_backward with class weights or on other than [N, C] scores")
    hit = cx.binary("eq", cx.iota(1, "i64", x.shape), cx.unsqueeze(target, 1), "i64")
    valid = cx.unsqueeze(cx.binary("ne", target, ignore, "i64"), 1)
    scale = cx.unary("neg", g)
    if reduction == 1:
        scale = cx.binary("div", scale, cx.tensor(total, dt))
    if reduction == 0:
        scale = cx.unsqueeze(scale, 1)
    grad = cx.where(cx.binary("and", hit, valid, "bool"), scale, 0.0, dt)
    return cx.broadcast_to(grad, out.shape)


# -- tuple access ------------------------------------------------------------

@on("_operator.getitem", "operator.getitem")
def _getitem(cx, args, kwargs, out):
    v = args[0][args[1]]
    return v.get() if isinstance(v, Lazy) else v


# -- more of the core opset, composed ------------------------------------------

def _flip_axis(cx, x, axis):
    if x.shape[axis] <= 1:
        return x
    index = cx.constant(torch.arange(x.shape[axis] - 1, -1, -1, dtype=torch.int64))
    return cx.gather(x, index, axis)


@on("aten.flip.default")
def _flip(cx, args, kwargs, out):
    x = cx.tensor(args[0])
    for axis in dims_of(args[1], x.rank):
        x = _flip_axis(cx, x, axis)
    return x


@on("aten.log2.default", "aten.log10.default")
def _log_base(cx, args, kwargs, out):
    x = cx.tensor(args[0], odt(out))
    base = 2.0 if "log2" in cx._current_op else 10.0
    return cx.binary("mul", cx.unary("log", x), 1.0 / math.log(base))


@on("aten.sinh.default", "aten.cosh.default")
def _sinh_cosh(cx, args, kwargs, out):
    x = cx.tensor(args[0], odt(out))
    a, b = cx.unary("exp", x), cx.unary("exp", cx.unary("neg", x))
    return cx.binary("mul", cx.binary("sub" if "sinh" in cx._current_op else "add", a, b), 0.5)


@on("aten.tan.default")
def _tan(cx, args, kwargs, out):
    x = cx.tensor(args[0], odt(out))
    return cx.binary("div", cx.unary("sin", x), cx.unary("cos", x))


@on("aten.elu.default")
def _elu(cx, args, kwargs, out):
    x = cx.tensor(args[0], odt(out))
    alpha = float(arg(args, kwargs, 1, "alpha", 1.0))
    scale = float(arg(args, kwargs, 2, "scale", 1.0))
    input_scale = float(arg(args, kwargs, 3, "input_scale", 1.0))
    neg = cx.binary("mul", cx.binary("sub", cx.unary("exp", cx.binary("mul", x, input_scale)),
                                     1.0), alpha)
    y = cx.where(cx.binary("gt", x, 0.0), x, neg, x.dtype)
    return cx.binary("mul", y, scale) if scale != 1.0 else y


@on("aten.upsample_nearest2d.vec", "aten.upsample_nearest2d.default")
def _upsample_nearest(cx, args, kwargs, out):
    x = cx.tensor(args[0])
    for axis in (2, 3):
        n_in, n_out = x.shape[axis], out.shape[axis]
        if n_in == n_out:
            continue
        # torch's nearest: source index floor(i * in / out).
        index = torch.div(torch.arange(n_out, dtype=torch.int64) * n_in, n_out,
                          rounding_mode="floor")
        x = cx.gather(x, cx.constant(index), axis)
    return x


@on("aten.native_group_norm.default")
def _group_norm(cx, args, kwargs, out):
    dt = odt(out[0])
    x = cx.tensor(args[0], dt)
    w, b = args[1], args[2]
    n, c, groups, eps = args[3], args[4], args[6], float(args[7])
    grouped = cx.reshape(x, [n, groups, int(np.prod(x.shape)) // (n * groups)])
    mean, rstd = _norm_stats(cx, grouped, [2], eps)
    y = cx.reshape(cx.binary("mul", cx.binary("sub", grouped, mean), rstd), x.shape)
    if w is not None:
        y = cx.binary("mul", y, _channel(cx, w, dt, x.rank))
    if b is not None:
        y = cx.binary("add", y, _channel(cx, b, dt, x.rank))
    return (y, Lazy(lambda: cx.reshape(mean, out[1].shape)),
            Lazy(lambda: cx.reshape(rstd, out[2].shape)))


@on("aten.avg_pool1d.default", "aten.adaptive_avg_pool1d.default")
def _pool1d(cx, args, kwargs, out):
    x = cx.tensor(args[0])
    x4 = cx.unsqueeze(x, x.rank - 1)  # [.., C, 1, L]
    if "adaptive" in cx._current_op:
        length, n_out = x.shape[-1], out.shape[-1]
        if length % n_out:
            raise Refused("adaptive_avg_pool1d whose windows differ in size")
        kernel, stride, pad, include = length // n_out, length // n_out, 0, True
    else:
        kernel = _pair(args[1])[0]
        stride = _pair(arg(args, kwargs, 2, "stride") or [kernel])[0]
        pad = _pair(arg(args, kwargs, 3, "padding", 0))[0]
        if arg(args, kwargs, 4, "ceil_mode", False):
            raise Refused("avg_pool1d with ceil_mode")
        include = bool(arg(args, kwargs, 5, "count_include_pad", True))
    if x4.rank == 3:
        x4 = cx.unsqueeze(x4, 0)
    shape = list(x4.shape[:3]) + [(x4.shape[3] + 2 * pad - kernel) // stride + 1]
    y = cx.op("avg_pool2d", [x4], {"kernel": [1, kernel], "strides": [1, stride],
                                   "pads": [0, pad, 0, pad], "count_include_pad": include},
              x.dtype, shape)
    return cx.reshape(y, out.shape)


@on("aten.reflection_pad1d.default", "aten.reflection_pad2d.default",
    "aten.replication_pad1d.default", "aten.replication_pad2d.default")
def _edge_pad(cx, args, kwargs, out):
    x = cx.tensor(args[0])
    pad = list(args[1])
    reflect = "reflection" in cx._current_op
    for k in range(len(pad) // 2):
        axis = x.rank - 1 - k
        before, after = pad[2 * k], pad[2 * k + 1]
        size = x.shape[axis]
        parts = []
        if before:
            edge = (cx.slice(x, axis, 1, before + 1) if reflect else
                    cx.broadcast_to(cx.slice(x, axis, 0, 1),
                                    _with(x.shape, axis, before)))
            parts.append(_flip_axis(cx, edge, axis) if reflect else edge)
        parts.append(x)
        if after:
            edge = (cx.slice(x, axis, size - after - 1, size - 1) if reflect else
                    cx.broadcast_to(cx.slice(x, axis, size - 1, size),
                                    _with(x.shape, axis, after)))
            parts.append(_flip_axis(cx, edge, axis) if reflect else edge)
        x = cx.concat(parts, axis)
    return x


def _with(shape, axis, n):
    shape = list(shape)
    shape[axis] = n
    return shape


@on("aten.embedding_dense_backward.default")
def _embedding_dense_backward(cx, args, kwargs, out):
    # grad_weight = onehot(indices)^T @ grad: a matmul, no scatter.
    dt = odt(out)
    g, idx = cx.tensor(args[0], dt), cx.tensor(args[1], "i64")
    num_weights, padding_idx = args[2], args[3]
    if arg(args, kwargs, 4, "scale_grad_by_freq", False):
        raise Refused("embedding_dense_backward with scale_grad_by_freq")
    positions = int(np.prod(idx.shape))
    dim = out.shape[1]
    flat_idx = cx.reshape(idx, [positions, 1])
    hit = cx.binary("eq", cx.iota(1, "i64", [positions, num_weights]), flat_idx, "i64")
    if padding_idx is not None and padding_idx >= 0:
        hit = cx.binary("and", hit, cx.binary("ne", flat_idx, padding_idx, "i64"), "bool")
    onehot_t = cx.transpose(cx.cast(hit, dt), [1, 0])
    return cx.matmul(onehot_t, cx.reshape(g, [positions, dim]))


@on("aten.diagonal.default", "aten.diagonal_copy.default")
def _diagonal(cx, args, kwargs, out):
    x = cx.tensor(args[0])
    offset = arg(args, kwargs, 1, "offset", 0)
    d1 = norm_dim(arg(args, kwargs, 2, "dim1", 0), x.rank)
    d2 = norm_dim(arg(args, kwargs, 3, "dim2", 1), x.rank)
    rest = [d for d in range(x.rank) if d not in (d1, d2)]
    moved = cx.transpose(x, rest + [d1, d2])
    rows, cols = x.shape[d1], x.shape[d2]
    n = out.shape[-1]
    r0, c0 = (0, offset) if offset >= 0 else (-offset, 0)
    flat = cx.reshape(moved, [x.shape[d] for d in rest] + [rows * cols])
    index = torch.arange(n, dtype=torch.int64) * (cols + 1) + (r0 * cols + c0)
    return cx.gather(flat, cx.constant(index), len(rest))


@on("aten.tril.default", "aten.triu.default")
def _tril(cx, args, kwargs, out):
    x = cx.tensor(args[0])
    k = int(arg(args, kwargs, 1, "diagonal", 0))
    plane = list(x.shape[-2:])
    offset = cx.binary("sub", cx.iota(1, "i64", plane), cx.iota(0, "i64", plane), "i64")
    keep = cx.binary("le" if "tril" in cx._current_op else "ge", offset, k, "i64")
    return cx.broadcast_to(cx.where(keep, x, 0, x.dtype), x.shape)


# -- gradients of convolution and pooling ----------------------------------------

def _taps(kernel, dilation):
    return [(a * dilation[0], b * dilation[1]) for a in range(kernel[0]) for b in range(kernel[1])]


def _tap_view(cx, padded, da, db, stride, out_hw):
    """The [N, C, oh, ow] values a window tap reads (padded input, offset da, db)."""
    starts = [0, 0, da, db]
    limits = list(padded.shape[:2]) + [da + (out_hw[0] - 1) * stride[0] + 1,
                                       db + (out_hw[1] - 1) * stride[1] + 1]
    shape = list(padded.shape[:2]) + list(out_hw)
    return cx.op("slice", [padded], {"start": starts, "limit": limits,
                                     "stride": [1, 1, stride[0], stride[1]]}, padded.dtype, shape)


def _window_base(stride, padding, width, out_hw):
    """Flat input position of each window's first tap: (i*s - p) * W + (j*s - p)."""
    i = torch.arange(out_hw[0], dtype=torch.int64).view(-1, 1) * stride[0] - padding[0]
    j = torch.arange(out_hw[1], dtype=torch.int64).view(1, -1) * stride[1] - padding[1]
    return i * width + j


def _max_pool_indices(cx, x, kernel, stride, padding, dilation, out_hw, extra=(0, 0)):
    """torch's indices: the flat H*W position of each window's first largest tap."""
    pads = [0, 0, padding[0], padding[1], 0, 0, padding[0] + extra[0], padding[1] + extra[1]]
    padded = cx.op("pad", [x], {"pads": pads, "value": float("-inf")}, x.dtype,
                   [x.shape[0], x.shape[1], x.shape[2] + 2 * padding[0] + extra[0],
                    x.shape[3] + 2 * padding[1] + extra[1]])
    taps = _taps(kernel, dilation)
    views = [cx.unsqueeze(_tap_view(cx, padded, da, db, stride, out_hw), 0) for da, db in taps]
    stacked = cx.concat(views, 0)
    which = cx.op("argmax", [stacked], {"axis": 0, "keepdim": False}, "i64", stacked.shape[1:])
    width = x.shape[3]
    offsets = cx.constant(torch.tensor([da * width + db for da, db in taps], dtype=torch.int64))
    base = cx.constant(_window_base(stride, padding, width, out_hw))
    return cx.binary("add", cx.gather(offsets, which, 0), base, "i64")


def _place(cx, v, stride, origin, size):
    """Scatters [N, C, oh, ow] to an [N, C, H, W] grid at (origin + i*s, ...), zeros elsewhere."""
    n, c, oh, ow = v.shape
    if stride[0] > 1 or stride[1] > 1:  # zero insertion
        v6 = cx.reshape(v, [n, c, oh, 1, ow, 1])
        v6 = cx.op("pad", [v6], {"pads": [0, 0, 0, 0, 0, 0, 0, 0, 0, stride[0] - 1, 0,
                                          stride[1] - 1], "value": 0.0},
                   v.dtype, [n, c, oh, stride[0], ow, stride[1]])
        v = cx.reshape(v6, [n, c, oh * stride[0], ow * stride[1]])
        v = cx.op("slice", [v], {"start": [0, 0, 0, 0], "limit": [n, c, (oh - 1) * stride[0] + 1,
                                                                   (ow - 1) * stride[1] + 1],
                                 "stride": [1, 1, 1, 1]}, v.dtype,
                  [n, c, (oh - 1) * stride[0] + 1, (ow - 1) * stride[1] + 1])
    for axis, o, full in ((2, origin[0], size[0]), (3, origin[1], size[1])):
        if o < 0:  # the first rows fall before the grid
            v = cx.slice(v, axis, min(-o, v.shape[axis]), v.shape[axis])
            o = 0
        if o + v.shape[axis] > full:
            v = cx.slice(v, axis, 0, max(full - o, 0))
        begins, ends = [0] * 4, [0] * 4
        begins[axis], ends[axis] = o, full - o - v.shape[axis]
        if begins[axis] or ends[axis]:
            shape = list(v.shape)
            shape[axis] = full
            v = cx.op("pad", [v], {"pads": begins + ends, "value": 0.0}, v.dtype, shape)
    return v


@on("aten.max_pool2d_with_indices_backward.default")
def _max_pool_backward(cx, args, kwargs, out):
    dt = odt(out)
    g, x = cx.tensor(args[0], dt), cx.tensor(args[1], dt)
    if x.rank != 4:
        raise Refused("max_pool2d backward of a 3-D input")
    kernel, stride = _pair(args[2]), _pair(args[3] or args[2])
    padding, dilation = _pair(args[4]), _pair(args[5])
    indices = cx.tensor(args[7], "i64")
    out_hw = g.shape[2:]
    base = cx.constant(_window_base(stride, padding, x.shape[3], out_hw))
    total = None
    for da, db in _taps(kernel, dilation):
        hit = cx.binary("eq", indices, cx.binary("add", base, da * x.shape[3] + db, "i64"), "i64")
        part = _place(cx, cx.where(hit, g, 0.0, dt), stride,
                      (da - padding[0], db - padding[1]), x.shape[2:])
        total = part if total is None else cx.binary("add", total, part)
    return total


@on("aten.avg_pool2d_backward.default")
def _avg_pool_backward(cx, args, kwargs, out):
    dt = odt(out)
    g, x = cx.tensor(args[0], dt), cx.tensor(args[1], dt)
    if x.rank != 4:
        raise Refused("avg_pool2d backward of a 3-D input")
    kernel, stride = _pair(args[2]), _pair(args[3] or args[2])
    padding, include_pad, divisor = _pair(args[4]), bool(args[6]), args[7]
    if divisor:
        g = cx.binary("div", g, float(divisor))
    elif include_pad:
        g = cx.binary("div", g, float(kernel[0] * kernel[1]))
    else:  # each window's count of real taps, known from the shapes
        oh, ow = g.shape[2:]
        rows = [min(i * stride[0] - padding[0] + kernel[0], x.shape[2]) -
                max(i * stride[0] - padding[0], 0) for i in range(oh)]
        cols = [min(j * stride[1] - padding[1] + kernel[1], x.shape[3]) -
                max(j * stride[1] - padding[1], 0) for j in range(ow)]
        counts = torch.tensor(rows, dtype=torch.float64).view(-1, 1) * torch.tensor(
            cols, dtype=torch.float64).view(1, -1)
        g = cx.binary("div", g, cx.cast(cx.constant(counts), dt))
    total = None
    for da, db in _taps(kernel, [1, 1]):
        part = _place(cx, g, stride, (da - padding[0], db - padding[1]), x.shape[2:])
        total = part if total is None else cx.binary("add", total, part)
    return total


@on("aten._adaptive_avg_pool2d_backward.default")
def _adaptive_avg_pool_backward(cx, args, kwargs, out):
    dt = odt(out)
    g, x = cx.tensor(args[0], dt), cx.tensor(args[1], dt)
    n, c, h, w = x.shape
    oh, ow = g.shape[2:]
    if h % oh or w % ow:  # the transposed averaging matrices
        rows = cx.cast(cx.constant(_adaptive_matrix(h, oh).t().contiguous()), dt)
        cols = cx.cast(cx.constant(_adaptive_matrix(w, ow)), dt)
        return cx.matmul(cx.matmul(rows, g), cols)
    kh, kw = h // oh, w // ow
    wide = cx.broadcast_to(cx.reshape(g, [n, c, oh, 1, ow, 1]), [n, c, oh, kh, ow, kw])
    return cx.binary("div", cx.reshape(wide, [n, c, h, w]), float(kh * kw))


@on("aten.convolution_backward.default")
def _convolution_backward(cx, args, kwargs, out):
    g, x, w = args[0], args[1], args[2]
    stride, padding, dilation = _pair(args[4]), _pair(args[5]), _pair(args[6])
    transposed, groups, mask = args[7], int(args[9]), list(args[10])
    dt = odt(next(t for t in out if t is not None))
    g, x, w = cx.tensor(g, dt), cx.tensor(x, dt), cx.tensor(w, dt)
    if transposed or x.rank != 4:
        raise Refused("convolution_backward of a transposed or non-2-D convolution")
    o_total, c_group, kh, kw = w.shape
    results = [None, None, None]
    if mask[0]:
        # grad_x: the zero-inserted gradient convolved with the flipped, transposed weights.
        h, wd = x.shape[2:]
        placed = _place(cx, g, stride, (0, 0), [(g.shape[2] - 1) * stride[0] + 1,
                                               (g.shape[3] - 1) * stride[1] + 1])
        lead = [dilation[0] * (kh - 1) - padding[0], dilation[1] * (kw - 1) - padding[1]]
        rows = h + dilation[0] * (kh - 1)  # the padded extent a stride-1 conv needs
        cols = wd + dilation[1] * (kw - 1)
        grid = _place(cx, placed, [1, 1], lead, [rows, cols])
        wf = _flip_axis(cx, _flip_axis(cx, w, 2), 3)
        wf = cx.reshape(wf, [groups, o_total // groups, c_group, kh, kw])
        wf = cx.reshape(cx.transpose(wf, [0, 2, 1, 3, 4]),
                        [groups * c_group, o_total // groups, kh, kw])
        results[0] = cx.op("conv2d", [grid, wf], {"strides": [1, 1], "pads": [0, 0, 0, 0],
                                                  "dilations": dilation, "groups": groups},
                           dt, x.shape)
    if mask[1]:
        # grad_w[o, c, a, b] = sum over n, i, j of g[n, o, i, j] x[n, c, i*s - p + a*d, ...]:
        # a convolution of x (channels as batch) by g (batch as channels), per group.
        parts = []
        og = o_total // groups
        for k in range(groups):
            xs = cx.slice(x, 1, k * c_group, (k + 1) * c_group) if groups > 1 else x
            gs = cx.slice(g, 1, k * og, (k + 1) * og) if groups > 1 else g
            xt, gt = cx.transpose(xs, [1, 0, 2, 3]), cx.transpose(gs, [1, 0, 2, 3])
            full = [(xt.shape[2] + 2 * padding[0] - stride[0] * (gt.shape[2] - 1) - 1)
                    // dilation[0] + 1,
                    (xt.shape[3] + 2 * padding[1] - stride[1] * (gt.shape[3] - 1) - 1)
                    // dilation[1] + 1]
            gw = cx.op("conv2d", [xt, gt], {"strides": dilation, "pads": padding + padding,
                                            "dilations": stride, "groups": 1},
                       dt, [c_group, og] + full)
            gw = cx.slice(cx.slice(gw, 2, 0, kh), 3, 0, kw)
            parts.append(cx.transpose(gw, [1, 0, 2, 3]))
        results[1] = cx.concat(parts, 0)
    if mask[2]:
        results[2] = cx.reduce("reduce_sum", g, [0, 2, 3], False)
    return tuple(results)


@on("aten.native_batch_norm_backward.default")
def _batch_norm_backward(cx, args, kwargs, out):
    dt = odt(next(t for t in out if t is not None))
    g, x = cx.tensor(args[0], dt), cx.tensor(args[1], dt)
    w, rm, rv, save_mean, save_invstd = args[2], args[3], args[4], args[5], args[6]
    train, eps, mask = args[7], float(args[8]), list(args[9])
    axes = [0] + list(range(2, x.rank))
    if train:
        mean, invstd = _channel(cx, save_mean, dt, x.rank), _channel(cx, save_invstd, dt, x.rank)
    else:
        mean = _channel(cx, rm, dt, x.rank)
        invstd = cx.unary("rsqrt", cx.binary("add", _channel(cx, rv, dt, x.rank), eps))
    x_hat = cx.binary("mul", cx.binary("sub", x, mean), invstd)
    scale = cx.binary("mul", invstd, _channel(cx, w, dt, x.rank)) if w is not None else invstd
    results = [None, None, None]
    if mask[0]:
        if train:
            n = float(np.prod([x.shape[i] for i in axes]))
            a = cx.binary("sub", cx.binary("mul", g, n), cx.reduce("reduce_sum", g, axes, True))
            a = cx.binary("sub", a, cx.binary("mul", x_hat, cx.reduce(
                "reduce_sum", cx.binary("mul", g, x_hat), axes, True)))
            results[0] = cx.binary("mul", a, cx.binary("div", scale, n))
        else:
            results[0] = cx.binary("mul", g, scale)
    if mask[1]:
        results[1] = cx.reduce("reduce_sum", cx.binary("mul", g, x_hat), axes, False)
    if mask[2]:
        results[2] = cx.reduce("reduce_sum", g, axes, False)
    return tuple(results)


# -- attention ---------------------------------------------------------------

SDPA = {  # op -> (position of attn_mask (or its kwarg name, or None), of dropout_p, of is_causal)
    "aten.scaled_dot_product_attention.default": (3, 4, 5),
    "aten._scaled_dot_product_flash_attention.default": (None, 3, 4),
    "aten._scaled_dot_product_flash_attention_for_cpu.default": ("attn_mask", 3, 4),
    "aten._scaled_dot_product_efficient_attention.default": (3, 5, 6),
    "aten._scaled_dot_product_cudnn_attention.default": (3, 5, 6),
}


def _sdpa(cx, args, kwargs, out):
    mask_at, dropout_at, causal_at = SDPA[cx._current_op]
    first = out[0] if isinstance(out, (tuple, list)) else out
    dt = odt(first)
    q, k, v = (cx.tensor(t, dt) for t in args[:3])
    mask = kwargs.get(mask_at) if isinstance(mask_at, str) else (
        arg(args, kwargs, mask_at, "attn_mask") if mask_at is not None else None)
    if mask is None and mask_at is not None and not isinstance(mask_at, str):
        mask = kwargs.get("attn_bias")
    dropout = arg(args, kwargs, dropout_at, "dropout_p", 0.0)
    causal = bool(arg(args, kwargs, causal_at, "is_causal", False))
    if dropout:
        raise Refused("attention with dropout (random)")
    if kwargs.get("enable_gqa") or (q.rank >= 3 and q.shape[-3] != k.shape[-3]):
        raise Refused("grouped-query attention")
    scale = kwargs.get("scale")
    scale = 1.0 / math.sqrt(q.shape[-1]) if scale is None else float(scale)
    kt = cx.transpose(k, list(range(k.rank - 2)) + [k.rank - 1, k.rank - 2])
    scores = cx.binary("mul", cx.matmul(q, kt), scale)
    lq, lk = q.shape[-2], k.shape[-2]
    if causal:  # keep key j <= query i (top-left aligned, as torch)
        keep = cx.binary("le", cx.iota(1, "i64", [lq, lk]), cx.iota(0, "i64", [lq, lk]), "i64")
        scores = cx.where(keep, scores, float("-inf"), dt)
    if mask is not None:
        if isinstance(mask, Value) and mask.dtype == "bool":
            scores = cx.where(mask, scores, float("-inf"), dt)
        else:
            scores = cx.binary("add", scores, cx.tensor(mask, dt))
    probs = cx.op("softmax", [scores], {"axis": scores.rank - 1}, dt, scores.shape)
    y = cx.reshape(cx.matmul(probs, v), first.shape)
    if not isinstance(out, (tuple, list)):
        return y

    def logsumexp():
        m = cx.reduce("reduce_max", scores, [scores.rank - 1], True)
        s = cx.reduce("reduce_sum", cx.unary("exp", cx.binary("sub", scores, m)),
                      [scores.rank - 1], True)
        lse = cx.squeeze(cx.binary("add", cx.unary("log", s), m), [scores.rank - 1])
        if tuple(lse.shape) != tuple(out[1].shape):
            raise Refused("attention's logsumexp of shape %s" % list(out[1].shape))
        return cx.cast(lse, odt(out[1]))

    def unused():
        raise Refused("attention's auxiliary outputs (seeds, offsets, debug mask)")
    return tuple([y, Lazy(logsumexp)] + [Lazy(unused) for _ in out[2:]])


for _name in SDPA:
    HANDLERS[_name] = _sdpa


def _adaptive_matrix(size, out_size):
    """[out, size]: row i averages torch's window floor(i*size/out) .. ceil((i+1)*size/out)."""
    m = torch.zeros(out_size, size, dtype=torch.float64)
    for i in range(out_size):
        start, end = (i * size) // out_size, -((-(i + 1) * size) // out_size)
        m[i, start:end] = 1.0 / (end - start)
    return m


@on("aten.roll.default")
def _roll(cx, args, kwargs, out):
    x = cx.tensor(args[0])
    shifts = args[1] if isinstance(args[1], (list, tuple)) else [args[1]]
    dims = arg(args, kwargs, 2, "dims", [])
    dims = dims if isinstance(dims, (list, tuple)) else [dims]
    if not dims:  # roll of the flattened tensor
        flat = cx.reshape(x, [int(np.prod(x.shape))])
        return cx.reshape(_roll_axis(cx, flat, 0, shifts[0]), x.shape)
    for shift, d in zip(shifts, dims):
        x = _roll_axis(cx, x, norm_dim(d, x.rank), shift)
    return x


def _roll_axis(cx, x, axis, shift):
    n = x.shape[axis]
    shift = shift % n if n else 0
    if shift == 0:
        return x
    return cx.concat([cx.slice(x, axis, n - shift, n), cx.slice(x, axis, 0, n - shift)], axis)


def _spread(cx, g, axis, start, step, size):
    """g along `axis` placed at start, start + step, ... of a zero tensor `size` long."""
    m = g.shape[axis]
    if step > 1 and m > 1:  # zero insertion
        g = cx.unsqueeze(g, axis + 1)
        pads_b, pads_e = [0] * g.rank, [0] * g.rank
        pads_e[axis + 1] = step - 1
        wide = list(g.shape)
        wide[axis + 1] = step
        g = cx.op("pad", [g], {"pads": pads_b + pads_e, "value": 0.0}, g.dtype, wide)
        merged = list(g.shape[:axis]) + [m * step] + list(g.shape[axis + 2:])
        g = cx.slice(cx.reshape(g, merged), axis, 0, (m - 1) * step + 1)
    begins, ends = [0] * g.rank, [0] * g.rank
    begins[axis], ends[axis] = start, size - start - g.shape[axis]
    if ends[axis] < 0:
        raise Refused("a slice gradient that does not fit its input")
    if not begins[axis] and not ends[axis]:
        return g
    shape = list(g.shape)
    shape[axis] = size
    return cx.op("pad", [g], {"pads": begins + ends, "value": 0.0}, g.dtype, shape)


@on("aten.slice_backward.default")
def _slice_backward(cx, args, kwargs, out):
    g = cx.tensor(args[0], odt(out))
    sizes = list(args[1])
    dim = norm_dim(args[2], len(sizes))
    size = sizes[dim]
    start = _clamp_index(args[3], size, 0)
    return _spread(cx, g, dim, start, int(args[5]), size)


@on("aten.select_backward.default")
def _select_backward(cx, args, kwargs, out):
    g = cx.tensor(args[0], odt(out))
    sizes = list(args[1])
    dim = norm_dim(args[2], len(sizes))
    return _spread(cx, cx.unsqueeze(g, dim), dim, args[3] % sizes[dim], 1, sizes[dim])


def _bilinear_matrix(in_size, out_size, align_corners, scale):
    """[out, in]: each output's two source taps and weights, as torch's upsample_bilinear2d."""
    m = torch.zeros(out_size, in_size, dtype=torch.float64)
    if align_corners:
        step = (in_size - 1) / (out_size - 1) if out_size > 1 else 0.0
    else:
        step = 1.0 / scale if scale else in_size / out_size
    for o in range(out_size):
        src = o * step if align_corners else max((o + 0.5) * step - 0.5, 0.0)
        i0 = min(int(math.floor(src)), in_size - 1)
        i1 = min(i0 + 1, in_size - 1)
        lam = src - i0
        m[o, i0] += 1.0 - lam
        m[o, i1] += lam
    return m


@on("aten.upsample_bilinear2d.vec", "aten.upsample_bilinear2d.default")
def _upsample_bilinear(cx, args, kwargs, out):
    x = cx.tensor(args[0])
    align = bool(args[2])
    if cx._current_op.endswith(".vec"):
        scales = arg(args, kwargs, 3, "scale_factors") or [None, None]
    else:
        scales = [arg(args, kwargs, 3, "scales_h"), arg(args, kwargs, 4, "scales_w")]
    rows = cx.cast(cx.constant(_bilinear_matrix(x.shape[2], out.shape[2], align, scales[0])),
                   x.dtype)
    cols = cx.cast(cx.constant(_bilinear_matrix(x.shape[3], out.shape[3], align,
                                                scales[1]).t().contiguous()), x.dtype)
    return cx.matmul(cx.matmul(rows, x), cols)


@on("aten.native_group_norm_backward.default")
def _group_norm_backward(cx, args, kwargs, out):
    dt = odt(next(t for t in out if t is not None))
    g, x = cx.tensor(args[0], dt), cx.tensor(args[1], dt)
    mean, rstd, w = cx.tensor(args[2], dt), cx.tensor(args[3], dt), args[4]
    n, c, hxw, groups, mask = args[5], args[6], args[7], args[8], list(args[9])
    grouped = [n, groups, (c // groups) * hxw]
    xg = cx.reshape(x, grouped)
    m3, r3 = cx.reshape(mean, [n, groups, 1]), cx.reshape(rstd, [n, groups, 1])
    x_hat = cx.binary("mul", cx.binary("sub", xg, m3), r3)
    results = [None, None, None]
    if mask[0]:
        gw = cx.binary("mul", g, _channel(cx, w, dt, g.rank)) if w is not None else g
        gw = cx.reshape(gw, grouped)
        count = float(grouped[2])
        a = cx.binary("sub", cx.binary("mul", gw, count), cx.reduce("reduce_sum", gw, [2], True))
        a = cx.binary("sub", a, cx.binary("mul", x_hat, cx.reduce(
            "reduce_sum", cx.binary("mul", gw, x_hat), [2], True)))
        results[0] = cx.reshape(cx.binary("mul", a, cx.binary("div", r3, count)), x.shape)
    per_channel = [n, c, hxw]
    if mask[1]:
        prod = cx.reshape(cx.binary("mul", g, cx.reshape(x_hat, x.shape)), per_channel)
        results[1] = cx.reduce("reduce_sum", prod, [0, 2], False)
    if mask[2]:
        results[2] = cx.reduce("reduce_sum", cx.reshape(g, per_channel), [0, 2], False)
    return tuple(results)
