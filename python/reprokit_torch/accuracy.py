"""The accuracy rule: is a compiled result close enough to the eager one?

PyTorch's rule (the one its minifier and `same()` apply), implemented once here:
a float output passes when `allclose(res, ref, rtol=tol, atol=tol)`; otherwise,
given the fp64 eager result, when

    rmse(res, fp64) <= m * rmse(ref, fp64) + tol / 10

with m = 3 for f16/bf16 results and 2 otherwise: the compiled result may be off
by a few times the eager run's own rounding error, not more. tol defaults to
reprokit's per-dtype tolerance (1e-4 f32/f64, 1e-2 f16/bf16). Integer and bool
outputs must be equal; NaNs must sit in the same places.
Tested by python/tests/test_backend.py.
"""

import torch

LOW_PRECISION = (torch.float16, torch.bfloat16)


def default_tol(dtype):
    return 1e-2 if dtype in LOW_PRECISION else 1e-4


def rmse(a, b):
    a = a.detach().to("cpu", torch.float64)
    b = b.detach().to("cpu", torch.float64)
    finite = torch.isfinite(a) & torch.isfinite(b)
    if not bool(finite.any()):
        return 0.0
    return float(torch.sqrt(torch.mean((a[finite] - b[finite]) ** 2)))


def compare(ref, res, fp64=None, tol=None):
    """(passes, details) for one output; details holds the numbers that decided."""
    details = {"dtype": str(res.dtype).replace("torch.", "")}
    if ref.shape != res.shape:
        details["reason"] = "shape %s vs %s" % (list(res.shape), list(ref.shape))
        return False, details
    if not ref.dtype.is_floating_point:
        ok = bool(torch.equal(ref.detach().cpu(), res.detach().cpu().to(ref.dtype)))
        details["reason"] = "equal" if ok else "values differ"
        return ok, details
    tol = default_tol(res.dtype) if tol is None else tol
    r64, c64 = ref.detach().cpu().double(), res.detach().cpu().double()
    if not torch.equal(torch.isnan(r64), torch.isnan(c64)):
        details["reason"] = "NaN in other places"
        return False, details
    if bool(torch.allclose(c64, r64, rtol=tol, atol=tol, equal_nan=True)):
        details["reason"] = "allclose"
        return True, details
    details["max_abs_error"] = float((c64 - r64).abs().nan_to_num(0.0).max())
    if fp64 is None:
        details["reason"] = "not allclose and no fp64 reference"
        return False, details
    m = 3.0 if res.dtype in LOW_PRECISION else 2.0
    res_error, ref_error = rmse(res, fp64), rmse(ref, fp64)
    ok = res_error <= m * ref_error + tol / 10.0
    details.update({"rmse_result_vs_fp64": res_error, "rmse_reference_vs_fp64": ref_error,
                    "multiplier": m, "tol": tol,
                    "reason": "rmse within %g x eager's" % m if ok else
                    "rmse %.3g > %g x %.3g + %g" % (res_error, m, ref_error, tol / 10.0)})
    return ok, details


def same_within_tolerance(ref, res, fp64=None, tol=None):
    """(passes, per-output details) over matching flat lists of outputs."""
    ref, res = _flat(ref), _flat(res)
    fp64 = _flat(fp64) if fp64 is not None else [None] * len(ref)
    if len(ref) != len(res):
        return False, [{"reason": "%d outputs vs %d" % (len(res), len(ref))}]
    all_ok, details = True, []
    for i, (a, b, c) in enumerate(zip(ref, res, fp64)):
        if not isinstance(a, torch.Tensor) or not isinstance(b, torch.Tensor):
            continue
        ok, d = compare(a, b, c if isinstance(c, torch.Tensor) else None, tol)
        d["index"] = i
        details.append(d)
        all_ok = all_ok and ok
    return all_ok, details


def _flat(x):
    if isinstance(x, (list, tuple)):
        out = []
        for y in x:
            out.extend(_flat(y))
        return out
    return [x]
