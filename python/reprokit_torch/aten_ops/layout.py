"""Layout and indexing: views become copies (reshape, transpose, broadcast_to,
slice, concat, pad), as_strided and torch's gather become flat gathers, index.Tensor
and embedding become gathers, tuple access (docs/PYTORCH.md).
Tested by python/tests/test_convert.py (layout, as_strided, indexing, core_more, image_ops)."""

import numpy as np
import torch

from ..convert import Lazy, Refused
from ..rk_graph import Value
from .common import _clamp_index, _flip_axis, _with, arg, dims_of, norm_dim, odt, on


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
    index = cx.constant(torch.from_numpy(np.array(idx, copy=True)))  # keeps a 0-d index 0-d
    return cx.gather(flat, index, 0)


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


@on("_operator.getitem", "operator.getitem")
def _getitem(cx, args, kwargs, out):
    v = args[0][args[1]]
    return v.get() if isinstance(v, Lazy) else v


@on("aten.flip.default")
def _flip(cx, args, kwargs, out):
    x = cx.tensor(args[0])
    for axis in dims_of(args[1], x.rank):
        x = _flip_axis(cx, x, axis)
    return x


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
