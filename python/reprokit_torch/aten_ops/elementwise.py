"""Elementwise ATen ops: unary, binary with type promotion and scalars, compare,
logic, where, activations, casts and copies, tensor creation (docs/PYTORCH.md).
Tested by python/tests/test_convert.py (unary, binary, integer, compare_where,
activations, casts, creation, core_more)."""

import math
import torch

from ..convert import Refused, rk_dtype
from ..rk_graph import FLOATS, Value
from .common import HANDLERS, _to_bool, arg, odt, on


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
        from ..convert import RK_TO_TORCH
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


@on("aten.threshold.default")
def _threshold(cx, args, kwargs, out):
    dt = odt(out)
    x = cx.tensor(args[0], dt)
    return cx.where(cx.binary("le", x, args[1], dt), args[2], x, dt)


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
