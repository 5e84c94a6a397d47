"""Reductions: sum, mean, amax/amin, max/min with indices, argmax/argmin, any/all,
var/std, cumsum, logsumexp (docs/PYTORCH.md).
Tested by python/tests/test_convert.py (reductions, bool_reductions)."""

import numpy as np

from ..convert import Lazy, Refused
from ..rk_graph import FLOATS
from .common import HANDLERS, _to_bool, _variance, arg, dims_of, norm_dim, odt, on


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
