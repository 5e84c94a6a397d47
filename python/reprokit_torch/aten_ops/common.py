"""What every handler module shares: the registry, argument access, and helpers
used by more than one op family (dims, pairs, per-channel vectors, variance).
Tested by python/tests/test_convert.py."""

import numpy as np
import torch

from ..convert import Refused, rk_dtype
from ..rk_graph import Value


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


def _to_bool(cx, x):
    if isinstance(x, Value) and x.dtype != "bool":
        return cx.binary("ne", x, 0, x.dtype)
    return cx.tensor(x, "bool")


def _clamp_index(i, size, default):
    if i is None:
        return default
    i = int(i)
    if i < 0:
        i += size
    return min(max(i, 0), size)


def _variance(cx, x, dims, correction, keepdim):
    m = cx.reduce("reduce_mean", x, dims, True)
    d = cx.binary("sub", x, m)
    s = cx.reduce("reduce_sum", cx.binary("mul", d, d), dims, keepdim)
    n = int(np.prod([x.shape[i] for i in dims])) if dims else 1
    return cx.binary("div", s, float(max(n - correction, 0)))


def _pair(v):
    v = list(v) if isinstance(v, (list, tuple)) else [v]
    return [int(v[0]), int(v[-1])] if len(v) else [1, 1]


def _norm_stats(cx, x, axes, eps):
    mean = cx.reduce("reduce_mean", x, axes, True)
    var = _variance(cx, x, axes, 0, True)
    rstd = cx.unary("rsqrt", cx.binary("add", var, float(eps)))
    return mean, rstd


def _channel(cx, v, dt, rank):
    return cx.reshape(cx.tensor(v, dt), [1, -1] + [1] * (rank - 2))


def _refuse(reason):
    raise Refused(reason)


def _flip_axis(cx, x, axis):
    if x.shape[axis] <= 1:
        return x
    index = cx.constant(torch.arange(x.shape[axis] - 1, -1, -1, dtype=torch.int64))
    return cx.gather(x, index, axis)


def _with(shape, axis, n):
    shape = list(shape)
    shape[axis] = n
    return shape
