"""The backward ops AOT autograd leaves in a backward graph, composed from reprokit
ops: activations', softmax's and the norms' gradients, convolution_backward as
convolutions, pooling gradients as placed window taps, slice/select/embedding
gradients (docs/PYTORCH.md).
Tested by python/tests/test_convert.py (TrainingGraphs, TrainingBlocks, CNNTraining)."""

import math
import numpy as np
import torch

from ..convert import Refused
from .common import _channel, _clamp_index, _flip_axis, _pair, arg, norm_dim, odt, on
from .nn import _adaptive_matrix, _taps, _window_base


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


@on("aten.threshold_backward.default")
def _threshold_backward(cx, args, kwargs, out):
    dt = odt(out)
    g, x = cx.tensor(args[0], dt), cx.tensor(args[1], dt)
    return cx.broadcast_to(cx.where(cx.binary("le", x, args[2], dt), 0.0, g, dt), out.shape)


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


@on("aten.mse_loss_backward.default")
def _mse_loss_backward(cx, args, kwargs, out):
    dt = odt(out)
    g, a, b = cx.tensor(args[0], dt), cx.tensor(args[1], dt), cx.tensor(args[2], dt)
    reduction = arg(args, kwargs, 3, "reduction", 1)
    scale = 2.0 / float(np.prod(out.shape)) if reduction == 1 else 2.0
    return cx.broadcast_to(cx.binary("mul", cx.binary("mul", cx.binary("sub", a, b), g), scale),
                           out.shape)


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
