"""Network ops: matmul family, convolution, pooling (max_pool2d's indices as
torch's), upsampling, softmax, layer/batch/group norm, losses, scaled dot-product
attention (docs/PYTORCH.md).
Tested by python/tests/test_convert.py (matmul, conv_pool, image_ops, softmax_norm,
batch_norm, losses, Attention, the training graphs)."""

import math
import numpy as np
import torch

from ..convert import Lazy, Refused
from ..rk_graph import Value
from .common import (
    HANDLERS, _channel, _norm_stats, _pair, _refuse, _variance, arg, norm_dim, odt, on)
from .layout import _torch_gather


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


@on("prims._low_memory_max_pool_with_offsets.default")
def _max_pool_with_offsets(cx, args, kwargs, out):
    """Inductor's max_pool2d (torch 2.5+): the values, and each window's first
    largest tap as its place in the window (kh * kernel_w + kw), int8."""
    x = _pool_input(cx, cx.tensor(args[0]))
    kernel = _pair(args[1])
    stride = _pair(arg(args, kwargs, 2, "stride") or kernel)
    padding = _pair(arg(args, kwargs, 3, "padding", 0))
    dilation = _pair(arg(args, kwargs, 4, "dilation", 1))
    values = _max_pool(cx, [args[0], kernel, stride, padding, dilation,
                            arg(args, kwargs, 5, "ceil_mode", False)], {}, out[0])
    out_hw = list(out[0].shape[-2:])
    extra = [max(0, (out_hw[i] - 1) * stride[i] + dilation[i] * (kernel[i] - 1) + 1
                 - x.shape[2 + i] - 2 * padding[i]) for i in range(2)]
    return (values, Lazy(lambda: cx.reshape(cx.cast(
        _max_pool_taps_argmax(cx, x, kernel, stride, padding, dilation, out_hw, extra),
        odt(out[1])), out[1].shape)))


@on("prims._low_memory_max_pool_offsets_to_indices.default")
def _max_pool_offsets_to_indices(cx, args, kwargs, out):
    """The offsets above as torch's indices (flat H*W positions in the input)."""
    offsets = cx.tensor(args[0])
    kernel = _pair(args[1])
    width = int(args[2][-1])
    stride = _pair(args[3])
    padding = _pair(args[4])
    dilation = _pair(arg(args, kwargs, 5, "dilation", 1))
    out_hw = list(out.shape[-2:])
    which = cx.cast(offsets, "i64")
    taps = cx.constant(torch.tensor([da * width + db for da, db in _taps(kernel, dilation)],
                                    dtype=torch.int64))
    base = cx.constant(_window_base(stride, padding, width, out_hw))
    return cx.reshape(cx.binary("add", cx.gather(taps, which, 0), base, "i64"), out.shape)


def _max_pool_taps_argmax(cx, x, kernel, stride, padding, dilation, out_hw, extra=(0, 0)):
    """Each window's first largest tap, as its place in _taps' order."""
    pads = [0, 0, padding[0], padding[1], 0, 0, padding[0] + extra[0], padding[1] + extra[1]]
    padded = cx.op("pad", [x], {"pads": pads, "value": float("-inf")}, x.dtype,
                   [x.shape[0], x.shape[1], x.shape[2] + 2 * padding[0] + extra[0],
                    x.shape[3] + 2 * padding[1] + extra[1]])
    taps = _taps(kernel, dilation)
    views = [cx.unsqueeze(_tap_view(cx, padded, da, db, stride, out_hw), 0) for da, db in taps]
    stacked = cx.concat(views, 0)
    return cx.op("argmax", [stacked], {"axis": 0, "keepdim": False}, "i64", stacked.shape[1:])


def _max_pool_indices(cx, x, kernel, stride, padding, dilation, out_hw, extra=(0, 0)):
    """torch's indices: the flat H*W position of each window's first largest tap."""
    which = _max_pool_taps_argmax(cx, x, kernel, stride, padding, dilation, out_hw, extra)
    taps = _taps(kernel, dilation)
    width = x.shape[3]
    offsets = cx.constant(torch.tensor([da * width + db for da, db in taps], dtype=torch.int64))
    base = cx.constant(_window_base(stride, padding, width, out_hw))
    return cx.binary("add", cx.gather(offsets, which, 0), base, "i64")


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


@on("aten._native_multi_head_attention.default")
def _native_mha(cx, args, kwargs, out):
    # nn.MultiheadAttention's fast path (eval, no grad): projections, attention per
    # head, output projection; batch first.
    dt = odt(out[0])
    q_in, k_in, v_in = (cx.tensor(t, dt) for t in args[:3])
    embed, heads = int(args[3]), int(args[4])
    w, b = cx.tensor(args[5], dt), cx.tensor(args[6], dt)
    pw, pb = cx.tensor(args[7], dt), cx.tensor(args[8], dt)
    if arg(args, kwargs, 9, "mask") is not None:
        raise Refused("_native_multi_head_attention with a mask")
    need_weights = bool(arg(args, kwargs, 10, "need_weights", True))
    average = bool(arg(args, kwargs, 11, "average_attn_weights", True))
    if q_in.rank != 3:
        raise Refused("_native_multi_head_attention of unbatched inputs")
    head_dim = embed // heads

    def project(x, k):
        wk = cx.transpose(cx.slice(w, 0, k * embed, (k + 1) * embed), [1, 0])
        y = cx.binary("add", cx.matmul(x, wk), cx.slice(b, 0, k * embed, (k + 1) * embed))
        y = cx.reshape(y, [x.shape[0], x.shape[1], heads, head_dim])
        return cx.transpose(y, [0, 2, 1, 3])  # [B, H, L, D]
    q, k, v = project(q_in, 0), project(k_in, 1), project(v_in, 2)
    scores = cx.binary("mul", cx.matmul(q, cx.transpose(k, [0, 1, 3, 2])),
                       1.0 / math.sqrt(head_dim))
    probs = cx.op("softmax", [scores], {"axis": 3}, dt, scores.shape)
    y = cx.transpose(cx.matmul(probs, v), [0, 2, 1, 3])
    y = cx.reshape(y, [q_in.shape[0], q_in.shape[1], embed])
    y = cx.binary("add", cx.matmul(y, cx.transpose(pw, [1, 0])), pb)

    def weights():
        if not need_weights:
            raise Refused("the empty weights of _native_multi_head_attention")
        return cx.reshape(cx.reduce("reduce_mean", probs, [1], False) if average else probs,
                          out[1].shape)
    return (cx.reshape(y, out[0].shape), Lazy(weights))
