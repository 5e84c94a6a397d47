#!/usr/bin/env python3
"""A graph as a jax function, compiled by jax.jit (XLA) at the settings in
expected.json and compared with the values beside it. Needs jax and numpy only.
Exit: 1 while the discrepancy is present, 0 once fixed, 2 cannot test (no jax,
no such device), 3 cannot judge.

Each line of `graph` is one node of the original graph, with reprokit's
semantics (round half to even, truncating and wrapping float -> int casts,
x / 0 == 0 for integers, out-of-range gather indices read zeros). The same
function run op by op (no jax.jit), in the graph's dtypes and promoted to
float64, is printed beside the compiled one.

Rule (reprokit's "torch" accuracy policy): an output passes when it is
allclose to the reference computed in its own dtype (reference_*.npy, atol =
rtol = tol); else when its RMSE against the fp64 values (expected_*.npy) is at
most `bound` = m x the RMSE of that reference against fp64 + tol/10. Integer
and bool outputs must equal the reference exactly.
"""
import json
import math
import os
import sys

os.environ.setdefault("XLA_PYTHON_CLIENT_PREALLOCATE", "false")
import numpy as np

try:
    import jax
    jax.config.update("jax_enable_x64", True)
    import jax.numpy as jnp
    from jax import lax
except ImportError as e:
    print("cannot test: %s (pip install jax)" % e)
    sys.exit(2)

DTYPES = {"f16": jnp.float16, "bf16": jnp.bfloat16, "f32": jnp.float32, "f64": jnp.float64,
          "i32": jnp.int32, "i64": jnp.int64, "bool": jnp.bool_}
FLOATS = ("f16", "bf16", "f32", "f64")
BF16 = np.dtype(jnp.bfloat16)


def _axis(axis, rank):
    return axis % rank if rank else axis


def _wide(x):  # f16/bf16 sums, pools and norms compute in f32, as jnp.sum does
    return x.astype(jnp.float32) if x.dtype in (jnp.float16, jnp.bfloat16) else x


def rk_relu(x, planted):
    y = jnp.maximum(x, jnp.zeros((), x.dtype))
    # PLANTED (TESTING ONLY): reprokit's jax_xla adapter's own fault, not XLA's.
    return y + jnp.ones((), x.dtype) if planted else y


def rk_round(x):
    return lax.round(x, lax.RoundingMethod.TO_NEAREST_EVEN)


def rk_gelu(x):
    return jax.nn.gelu(x, approximate=False)


def rk_iota(shape, axis, dtype):
    return lax.broadcasted_iota(jnp.int64, tuple(shape), _axis(axis, len(shape))).astype(dtype)


def rk_clip(x, lo, hi):
    if lo is not None:
        x = jnp.maximum(x, jnp.asarray(lo, x.dtype))
    if hi is not None:
        x = jnp.minimum(x, jnp.asarray(hi, x.dtype))
    return x


def _int_divmod(a, b):  # truncated quotient and remainder by a divisor never 0 or -1
    a, b = jnp.broadcast_arrays(a, b)
    special = (b == 0) | (b == -1)
    safe = jnp.where(special, jnp.ones_like(b), b)
    q, r = lax.div(a, safe), lax.rem(a, safe)
    floor_fix = (r != 0) & ((r < 0) != (safe < 0))
    return a, b, special, safe, q, r, floor_fix


def rk_int_div(a, b):  # truncating; x / 0 == 0; MIN / -1 == MIN (wraps)
    a, b, _, _, q, _, _ = _int_divmod(a, b)
    return jnp.where(b == 0, jnp.zeros_like(q), jnp.where(b == -1, -a, q))


def rk_int_floordiv(a, b):
    a, b, _, _, q, _, fix = _int_divmod(a, b)
    q = q - fix.astype(q.dtype)
    return jnp.where(b == 0, jnp.zeros_like(q), jnp.where(b == -1, -a, q))


def rk_int_mod(a, b):
    a, b, special, safe, _, r, fix = _int_divmod(a, b)
    r = jnp.where(fix, r + safe, r)
    return jnp.where(special, jnp.zeros_like(r), r)


def _float_divmod(a, b):  # numpy's divmod
    a, b = jnp.broadcast_arrays(a, b)
    m = lax.rem(a, b)
    d = (a - m) / b
    zero = jnp.zeros_like(m)
    flip = (m != 0) & ((b < 0) != (m < 0))
    r = jnp.where(m != 0, jnp.where(flip, m + b, m), jnp.copysign(zero, b))
    d = jnp.where(flip, d - 1, d)
    q = jnp.floor(d)
    q = jnp.where(d - q > 0.5, q + 1, q)
    q = jnp.where(d != 0, q, jnp.copysign(zero, a / b))
    by_zero = b == 0
    return jnp.where(by_zero, a / b, q), jnp.where(by_zero, m, r)


def rk_float_mod(a, b):
    return _float_divmod(a, b)[1]


def rk_float_floordiv(a, b):
    return _float_divmod(a, b)[0]


def rk_cast(x, src, dst):
    if src in FLOATS and dst in ("i32", "i64"):  # truncate, wrap, NaN/Inf -> 0
        t = x.astype(jnp.float64)
        t = jnp.where(jnp.isfinite(t), jnp.trunc(t), 0.0)
        t = jnp.fmod(t, 2.0 ** 64)
        t = jnp.where(t >= 2.0 ** 63, t - 2.0 ** 64, t)
        t = jnp.where(t < -2.0 ** 63, t + 2.0 ** 64, t)
        return t.astype(jnp.int64).astype(DTYPES[dst])
    if dst == "bool" and src != "bool":
        return x != jnp.zeros((), x.dtype)
    return x.astype(DTYPES[dst])


def rk_reduce(x, kind, axes, keepdim):
    axes = tuple(sorted(_axis(a, x.ndim) for a in axes))
    if not axes:
        return x
    if kind == "sum":
        return jnp.sum(_wide(x), axis=axes, keepdims=keepdim,
                       promote_integers=False).astype(x.dtype)
    if kind == "mean":
        return jnp.mean(_wide(x), axis=axes, keepdims=keepdim).astype(x.dtype)
    r = (lax.reduce_max if kind == "max" else lax.reduce_min)(x, axes)
    return jnp.expand_dims(r, axes) if keepdim else r


def rk_argmax(x, axis, keepdim):
    axis = _axis(axis, x.ndim)
    r = lax.argmax(x, axis, jnp.int64)
    return jnp.expand_dims(r, axis) if keepdim else r


def rk_cumsum(x, axis, exclusive, reverse):
    axis = _axis(axis, x.ndim)
    w = _wide(x)
    s = lax.cumsum(w, axis=axis, reverse=reverse)
    n = x.shape[axis]
    if exclusive and n > 0:
        zero_shape = list(x.shape)
        zero_shape[axis] = 1
        zero = jnp.zeros(zero_shape, w.dtype)
        if reverse:
            s = jnp.concatenate([lax.slice_in_dim(s, 1, n, axis=axis), zero], axis=axis)
        else:
            s = jnp.concatenate([zero, lax.slice_in_dim(s, 0, n - 1, axis=axis)], axis=axis)
    return s.astype(x.dtype)


def rk_slice(x, start, limit, stride):
    return x[tuple(slice(s, l, st) for s, l, st in zip(start, limit, stride))]


def rk_pad(x, pads, value):
    rank = x.ndim
    return lax.pad(x, jnp.asarray(value, x.dtype),
                   [(pads[i], pads[i + rank], 0) for i in range(rank)])


def rk_gather(data, indices, axis):  # out-of-range indices read zeros
    axis = _axis(axis, data.ndim)
    size = data.shape[axis]
    idx = indices.astype(jnp.int64)
    idx = jnp.where(idx < 0, idx + size, idx)
    valid = (idx >= 0) & (idx < size)
    out = jnp.take(data, jnp.where(valid, idx, jnp.zeros_like(idx)), axis=axis, mode="clip")
    mask = valid.reshape((1,) * axis + tuple(indices.shape) + (1,) * (data.ndim - axis - 1))
    return jnp.where(mask, out, jnp.zeros((), data.dtype))


def _window(x, init, op, kernel, strides, pads, dilations=(1, 1)):
    top, left, bottom, right = pads
    return lax.reduce_window(x, np.array(init, dtype=x.dtype), op, (1, 1) + tuple(kernel),
                             (1, 1) + tuple(strides),
                             ((0, 0), (0, 0), (top, bottom), (left, right)),
                             window_dilation=(1, 1) + tuple(dilations))


def rk_conv2d(x, w, strides, pads, dilations, groups):
    top, left, bottom, right = pads
    return lax.conv_general_dilated(x, w, tuple(strides), ((top, bottom), (left, right)),
                                    rhs_dilation=tuple(dilations),
                                    dimension_numbers=("NCHW", "OIHW", "NCHW"),
                                    feature_group_count=groups)


def rk_max_pool2d(x, kernel, strides, pads, dilations):
    return _window(x, -np.inf, lax.max, kernel, strides, pads, dilations)


def rk_avg_pool2d(x, kernel, strides, pads, count_include_pad):
    w = _wide(x)
    total = _window(w, 0, lax.add, kernel, strides, pads)
    if count_include_pad:
        return (total / (kernel[0] * kernel[1])).astype(x.dtype)
    count = _window(jnp.ones_like(w), 0, lax.add, kernel, strides, pads)
    return (total / count).astype(x.dtype)


def rk_layer_norm(x, gamma, beta, eps):
    w = _wide(x)
    d = w - jnp.mean(w, axis=-1, keepdims=True)
    v = jnp.mean(d * d, axis=-1, keepdims=True)
    return (d * lax.rsqrt(v + eps) * _wide(gamma) + _wide(beta)).astype(x.dtype)


def rk_rms_norm(x, gamma, eps):
    w = _wide(x)
    ms = jnp.mean(w * w, axis=-1, keepdims=True)
    return (w * lax.rsqrt(ms + eps) * _wide(gamma)).astype(x.dtype)

