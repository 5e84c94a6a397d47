#!/usr/bin/env python3
"""A graph as a PyTorch function, compiled by torch.compile (Inductor) at the
settings in expected.json and compared with the values beside it. Needs torch
and numpy only. Exit: 1 while the discrepancy is present, 0 once fixed, 2
cannot test (no torch.compile, no CUDA), 3 cannot judge.

Each line of `graph` is one node of the original graph, with reprokit's
semantics (round half to even, truncating and wrapping float -> int casts,
x / 0 == 0 for integers, out-of-range gather indices read zeros). The eager
run of the same function, in the graph's dtypes and promoted to float64, is
printed beside the compiled one.

Rule (reprokit's "torch" accuracy policy): an output passes when it is
allclose to the reference computed in its own dtype (reference_*.npy, atol =
rtol = tol); else when its RMSE against the fp64 values (expected_*.npy) is at
most `bound` = m x the RMSE of that reference against fp64 + tol/10. Integer
and bool outputs must equal the reference exactly.
"""
import importlib
import json
import math
import os
import sys

import numpy as np

try:
    import torch
    import torch.nn.functional as F
except ImportError as e:
    print("cannot test: %s (pip install torch)" % e)
    sys.exit(2)

DTYPES = {"f16": torch.float16, "bf16": torch.bfloat16, "f32": torch.float32,
          "f64": torch.float64, "i32": torch.int32, "i64": torch.int64, "bool": torch.bool}


def rk_iota(shape, axis, dtype, device):
    view = [1] * len(shape)
    view[axis] = shape[axis]
    return torch.arange(shape[axis], device=device).reshape(view).expand(shape).to(dtype)


def rk_clip(x, lo, hi):
    if lo is not None:
        x = torch.clamp_min(x, lo)
    if hi is not None:
        x = torch.clamp_max(x, hi)
    return x


def _safe_divisor(b):
    return torch.where((b == 0) | (b == -1), torch.ones_like(b), b)


def rk_int_div(a, b):  # truncating; x / 0 == 0; MIN / -1 wraps
    q = torch.div(a, _safe_divisor(b), rounding_mode="trunc")
    return torch.where(b == 0, torch.zeros_like(q), torch.where(b == -1, -a, q))


def rk_int_mod(a, b):
    r = torch.remainder(a, _safe_divisor(b))
    return torch.where((b == 0) | (b == -1), torch.zeros_like(r), r)


def rk_int_floordiv(a, b):
    q = torch.floor_divide(a, _safe_divisor(b))
    return torch.where(b == 0, torch.zeros_like(q), torch.where(b == -1, -a, q))


def _float_divmod(a, b):  # numpy's divmod
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


def rk_cast(x, dtype, to_int):
    if x.dtype.is_floating_point and to_int:  # truncate, wrap, NaN/Inf -> 0
        t = torch.trunc(torch.nan_to_num(x.double(), nan=0.0, posinf=0.0, neginf=0.0))
        t = torch.fmod(t, 2.0 ** 64)
        t = torch.where(t >= 2.0 ** 63, t - 2.0 ** 64, t)
        t = torch.where(t < -2.0 ** 63, t + 2.0 ** 64, t)
        return t.to(torch.int64).to(dtype)
    return x.to(dtype)


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


def rk_slice(x, start, limit, stride):
    return x[tuple(slice(s, l, st) for s, l, st in zip(start, limit, stride))]


def rk_pad(x, pads, value):
    rank = x.dim()
    torch_pads = []
    for axis in reversed(range(rank)):
        torch_pads += [pads[axis], pads[axis + rank]]
    return F.pad(x, torch_pads, mode="constant", value=value)


def rk_gather(data, indices, axis):  # out-of-range indices read zeros
    size = data.shape[axis]
    idx = indices.to(torch.int64)
    idx = torch.where(idx < 0, idx + size, idx)
    valid = (idx >= 0) & (idx < size)
    safe = torch.where(valid, idx, torch.zeros_like(idx))
    out_shape = list(data.shape[:axis]) + list(indices.shape) + list(data.shape[axis + 1:])
    out = torch.index_select(data, axis, safe.reshape(-1)).reshape(out_shape)
    mask_shape = [1] * axis + list(indices.shape) + [1] * (data.dim() - axis - 1)
    return torch.where(valid.reshape(mask_shape), out, torch.zeros_like(out))


def _pad_nchw(x, pads, value):
    top, left, bottom, right = pads
    if not any(pads):
        return x
    return F.pad(x, [left, right, top, bottom], mode="constant", value=value)


def rk_conv2d(x, w, strides, pads, dilations, groups):
    return F.conv2d(_pad_nchw(x, pads, 0.0), w, None, strides, 0, dilations, groups)


def rk_max_pool2d(x, kernel, strides, pads, dilations):
    return F.max_pool2d(_pad_nchw(x, pads, -math.inf), kernel, strides, 0, dilations)


def rk_avg_pool2d(x, kernel, strides, pads, count_include_pad):
    padded = _pad_nchw(x, pads, 0.0)
    if count_include_pad:
        return F.avg_pool2d(padded, kernel, strides, 0)
    total = F.avg_pool2d(padded, kernel, strides, 0, divisor_override=1)
    count = F.avg_pool2d(_pad_nchw(torch.ones_like(x), pads, 0.0), kernel, strides, 0,
                         divisor_override=1)
    return total / count


def rk_rms_norm(x, gamma, eps):
    if hasattr(F, "rms_norm"):
        return F.rms_norm(x, (x.shape[-1],), gamma, eps)
    return x * torch.rsqrt(torch.mean(x * x, dim=-1, keepdim=True) + eps) * gamma


HERE = os.path.dirname(os.path.abspath(__file__))


def load(name):
    return np.load(os.path.join(HERE, name))


def judge(result, out):
    """None when the output passes, else (exit code, one line)."""
    ref, fp64 = load(out["reference"]), load(out["expected_fp64"])
    got = np.asarray(result)
    if got.shape != ref.shape or got.dtype != ref.dtype:
        return 1, "got %s%s, expected %s%s" % (got.dtype, list(got.shape), ref.dtype,
                                               list(ref.shape))
    got, ref, fp64 = got.reshape(-1), ref.reshape(-1), fp64.reshape(-1)
    if not out["float"]:
        bad = np.flatnonzero(got != ref)
        if bad.size == 0:
            return None
        i = bad[0]
        return 1, "%d of %d elements differ; element %d: got %s, expected %s" % (
            bad.size, got.size, i, got[i].item(), ref[i].item())
    tol, g, r = out["tol"], got.astype(np.float64), ref.astype(np.float64)
    if np.allclose(g, r, rtol=tol, atol=tol, equal_nan=True):
        return None
    where = np.flatnonzero(np.isnan(fp64) & ~np.isnan(g))
    if where.size:
        return 3, "the fp64 values have NaN at element %d where the result is %r" % (
            where[0], float(g[where[0]]))
    where = np.flatnonzero(~np.isfinite(g) & np.isfinite(fp64))
    if where.size:
        i = where[0]
        return 1, "non-finite result at element %d: got %r, expected %r (fp64)" % (
            i, float(g[i]), float(fp64[i]))
    if np.any(~np.isfinite(r) & np.isfinite(fp64)):
        bad = np.flatnonzero(~(np.abs(g - fp64) <= tol + tol * np.abs(fp64)))
        if bad.size == 0:
            return None
        i = bad[0]
        return 1, "element %d: got %r, expected %r (fp64)" % (i, float(g[i]), float(fp64[i]))
    keep = ~np.isnan(fp64)
    diff = np.where(g == fp64, 0.0, g - fp64)[keep]
    rmse = float(np.sqrt(np.mean(diff * diff))) if diff.size else 0.0
    if rmse <= out["bound"]:
        return None
    i = int(np.argmax(np.abs(np.where(keep, np.where(g == fp64, 0.0, g - fp64), 0.0))))
    return 1, ("rmse vs fp64 %.3g > %.3g (= %g x the own-dtype reference's rmse %.3g + tol/10); "
               "worst element %d: got %r, expected %r (fp64)" % (
                   rmse, out["bound"], out["m"], out["rmse_reference"], i, float(g[i]),
                   float(fp64[i])))




def make_graph(device, consts):
    """The graph @fuzz: one line per node."""

    def graph():
        v0 = rk_iota([1, 5, 8], -2, DTYPES["f32"], device)  # %0 = iota
        v1 = torch.full([], 0, dtype=DTYPES["f32"], device=device)  # %1 = full
        v2 = torch.gt(v0, v1)  # %2 = gt
        v3 = torch.full([], True, dtype=DTYPES["bool"], device=device)  # %3 = full
        v4 = torch.eq(v2, v3)  # %4 = eq
        return (v4,)

    return graph


def to_numpy(t):
    t = t.detach().cpu()
    return (t.float() if t.dtype == torch.bfloat16 else t).numpy()


def report(what, results, spec):
    """Judges every output; the exit code (0 ok, 1 fail, 3 cannot judge)."""
    code = 0
    for out, result in zip(spec["outputs"], results):
        # The type first: the value comparison below converts to the
        # reference's dtype, which would hide an output of another dtype.
        shape = list(load(out["reference"]).shape)
        if result.dtype != DTYPES[out["dtype"]] or list(result.shape) != shape:
            print("%s: FAIL: output %s: got %s%s, the graph declares %s%s" % (
                what, out["name"], result.dtype, list(result.shape), DTYPES[out["dtype"]], shape))
            code = 1
            continue
        verdict = judge(to_numpy(result).astype(load(out["reference"]).dtype), out)
        if verdict is None:
            print("%s: output %s: ok" % (what, out["name"]))
        else:
            print("%s: %s: output %s: %s" % (what, "FAIL" if verdict[0] == 1 else "CANNOT JUDGE",
                                             out["name"], verdict[1]))
            code = 1 if verdict[0] == 1 else (code or verdict[0])
    return code


def main():
    with open(os.path.join(HERE, "expected.json")) as f:
        spec = json.load(f)
    device = spec["device"]
    if device == "cuda" and not torch.cuda.is_available():
        print("cannot test: no CUDA device")
        return 2
    inputs = [torch.from_numpy(load(name)).to(DTYPES[dtype]).to(device)
              for name, dtype in zip(spec["inputs"], spec["input_dtypes"])]
    consts = {int(k): torch.from_numpy(load(v["file"])).to(DTYPES[v["dtype"]]).to(device)
              for k, v in spec.get("constants", {}).items()}
    print("torch %s on %s, inductor config %s" % (torch.__version__, device,
                                                  json.dumps(spec["options"])))
    eager = make_graph(device, consts)
    eager_code = report("eager", eager(*inputs), spec)
    wide = lambda t: t.double() if t.is_floating_point() else t  # noqa: E731
    eager64 = make_graph(device, {k: wide(v) for k, v in consts.items()})(*map(wide, inputs))
    for out, value in zip(spec["outputs"], eager64):
        f64 = load(out["expected_fp64"]).reshape(-1)
        got = to_numpy(value).astype(np.float64).reshape(-1)
        err = np.abs(got - f64)
        print("eager fp64: output %s: max |eager fp64 - expected fp64| = %.3g" % (
            out["name"], float(np.nanmax(err)) if err.size else 0.0))
    if not hasattr(torch, "compile"):
        print("cannot compile: torch %s has no torch.compile (eager exit %d)" % (
            torch.__version__, eager_code))
        return 2
    dynamo = importlib.import_module("torch._dynamo")
    inductor_config = importlib.import_module("torch._inductor.config")
    options = dict(spec["options"])
    mode = options.pop("mode", "default")
    backend = options.pop("compile_backend", "inductor")
    defaults = inductor_config.get_config_copy()
    patch = {}
    for key, text in options.items():
        default = defaults.get(key)
        if isinstance(default, bool):
            patch[key] = text.lower() in ("1", "true", "yes", "on")
        elif isinstance(default, int):
            patch[key] = int(text)
        elif isinstance(default, float):
            patch[key] = float(text)
        elif text.lower() in ("none", "null"):
            patch[key] = None
        else:
            patch[key] = text
    dynamo.reset()
    try:
        with inductor_config.patch(patch):
            compiled = torch.compile(make_graph(device, consts), backend=backend, fullgraph=True,
                                     mode=None if mode == "default" or backend != "inductor"
                                     else mode)
            results = compiled(*inputs)
            if device == "cuda":
                torch.cuda.synchronize()
    except Exception as e:  # the graph is valid: a refusal is the failure
        print("FAIL: torch.compile raised %s: %s" % (type(e).__name__, str(e).splitlines()[0]))
        return 1
    code = report("compiled", results, spec)
    print("reproduces" if code == 1 else "does not reproduce" if code == 0 else "cannot judge")
    return code


if __name__ == "__main__":
    sys.exit(main())
