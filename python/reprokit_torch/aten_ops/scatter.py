"""Scatters without a scatter op: scatter, scatter_add, index_add and index_put as
one-hot comparisons summed over the scattered axis (memory: the index's elements
times the target axis's length). A non-accumulating scatter whose recorded index
has duplicates is refused (torch leaves the winner unspecified).
Tested by python/tests/test_convert.py (scatter)."""

import numpy as np
import torch

from ..convert import Refused
from .common import arg, norm_dim, odt, on


def _duplicates_along(index, dim):
    """Whether the real index tensor repeats a position along dim (per other coordinates)."""
    moved = index.detach().to("cpu").movedim(dim, -1).reshape(-1, index.shape[dim])
    return any(len(set(row.tolist())) != len(row) for row in moved)


def _scattered(cx, x, dim, index, src):
    """(sum of src at each target position, whether any hit it), both of x's shape."""
    dt = x.dtype
    src = cx.tensor(src, dt)
    for axis, n in enumerate(index.shape):  # src may be larger than index
        if src.shape[axis] > n:
            src = cx.slice(src, axis, 0, n)
    src = cx.broadcast_to(src, index.shape)
    k = x.shape[dim]
    wide = list(index.shape[:dim + 1]) + [k] + list(index.shape[dim + 1:])
    onehot = cx.binary("eq", cx.unsqueeze(cx.tensor(index, "i64"), dim + 1),
                       cx.iota(dim + 1, "i64", wide), "i64")
    contrib = cx.reduce("reduce_sum", cx.where(onehot, cx.unsqueeze(src, dim + 1), 0.0, dt),
                        [dim], False)
    hits = cx.cast(cx.reduce("reduce_max", cx.cast(onehot, "i32"), [dim], False), "bool")
    for axis in range(x.rank):  # index may be smaller than x off the scattered axis
        missing = x.shape[axis] - contrib.shape[axis]
        if axis != dim and missing > 0:
            pads_b, pads_e = [0] * x.rank, [0] * x.rank
            pads_e[axis] = missing
            shape = list(contrib.shape)
            shape[axis] = x.shape[axis]
            contrib = cx.op("pad", [contrib], {"pads": pads_b + pads_e, "value": 0.0}, dt, shape)
            hits = cx.op("pad", [hits], {"pads": pads_b + pads_e, "value": 0.0}, "bool", shape)
    return contrib, hits


@on("aten.scatter_add.default", "aten.scatter.src", "aten.scatter.value")
def _scatter(cx, args, kwargs, out):
    dt = odt(out)
    x = cx.tensor(args[0], dt)
    dim = norm_dim(args[1], x.rank)
    index = args[2]
    src = args[3]
    if cx._current_op == "aten.scatter.value":
        src = cx.full(float(src), dt, index.shape)
    contrib, hits = _scattered(cx, x, dim, index, src)
    if cx._current_op == "aten.scatter_add.default":
        return cx.binary("add", x, contrib)
    if _duplicates_along(cx._current_real_args[2], dim):
        raise Refused("scatter with repeated indices (torch's winner is unspecified)")
    return cx.where(hits, contrib, x, dt)


@on("aten.index_add.default")
def _index_add(cx, args, kwargs, out):
    dt = odt(out)
    x = cx.tensor(args[0], dt)
    dim = norm_dim(args[1], x.rank)
    source = cx.tensor(args[3], dt)
    alpha = arg(args, kwargs, 4, "alpha", 1)
    shape = [1] * source.rank
    shape[dim] = source.shape[dim]
    index = cx.broadcast_to(cx.reshape(cx.tensor(args[2], "i64"), shape), source.shape)
    contrib, _ = _scattered(cx, x, dim, index, source)
    if alpha != 1:
        contrib = cx.binary("mul", contrib, alpha, dt)
    return cx.binary("add", x, contrib)


@on("aten.index_put.default", "aten._unsafe_index_put.default")
def _index_put(cx, args, kwargs, out):
    dt = odt(out)
    x = cx.tensor(args[0], dt)
    indices = list(args[1])
    accumulate = bool(arg(args, kwargs, 3, "accumulate", False))
    used = [i for i, t in enumerate(indices) if t is not None]
    if len(used) != 1 or indices[used[0]].dtype not in ("i32", "i64"):
        raise Refused("index_put with other than one integer index tensor")
    a = used[0]
    idx = cx.tensor(indices[a], "i64")
    m = int(np.prod(idx.shape))
    flat_idx = cx.reshape(idx, [m])
    # negative indices count from the end, as torch's
    flat_idx = cx.where(cx.binary("lt", flat_idx, 0, "i64"),
                        cx.binary("add", flat_idx, x.shape[a], "i64"), flat_idx, "i64")
    target = list(x.shape[:a]) + list(idx.shape) + list(x.shape[a + 1:])
    values = cx.broadcast_to(cx.tensor(args[2], dt), target)
    values = cx.reshape(values, list(x.shape[:a]) + [m] + list(x.shape[a + 1:]))
    shape = [1] * values.rank
    shape[a] = m
    index = cx.broadcast_to(cx.reshape(flat_idx, shape), values.shape)
    contrib, hits = _scattered(cx, x, a, index, values)
    if accumulate:
        return cx.binary("add", x, contrib)
    real_idx = cx._current_real_args[1][a].reshape(-1)
    real_idx = torch.where(real_idx < 0, real_idx + x.shape[a], real_idx)
    if len(set(real_idx.tolist())) != real_idx.numel():
        raise Refused("index_put with repeated indices (torch's winner is unspecified)")
    return cx.where(hits, contrib, x, dt)
