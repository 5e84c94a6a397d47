#!/usr/bin/env python3
"""Runs model.onnx with ONNX Runtime at the settings in expected.json and
compares every output with the values beside it. Needs onnxruntime and numpy
only. Exit: 1 while the discrepancy is present, 0 once fixed, 2 cannot test
(no onnxruntime, no CUDA provider), 3 cannot judge (NaN in the fp64 values).

Rule (reprokit's "torch" accuracy policy): an output passes when it is
allclose to the reference computed in its own dtype (reference_*.npy, atol =
rtol = tol); else when its RMSE against the fp64 values (expected_*.npy) is at
most `bound` = m x the RMSE of that reference against fp64 + tol/10. Integer
and bool outputs must equal the reference exactly.
"""
import json
import os
import sys

import numpy as np

try:
    import onnxruntime as ort
except ImportError as e:
    print("cannot test: %s (pip install onnxruntime)" % e)
    sys.exit(2)

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


LEVELS = {"disable": ort.GraphOptimizationLevel.ORT_DISABLE_ALL,
          "basic": ort.GraphOptimizationLevel.ORT_ENABLE_BASIC,
          "extended": ort.GraphOptimizationLevel.ORT_ENABLE_EXTENDED,
          "all": ort.GraphOptimizationLevel.ORT_ENABLE_ALL}


def main():
    with open(os.path.join(HERE, "expected.json")) as f:
        spec = json.load(f)
    options = spec["options"]
    so = ort.SessionOptions()
    so.graph_optimization_level = LEVELS[options.get("graph_optimization_level", "all")]
    so.intra_op_num_threads = int(options.get("intra_op_num_threads", "0"))
    providers = ["CPUExecutionProvider"]
    if spec["device"] == "cuda":
        if "CUDAExecutionProvider" not in ort.get_available_providers():
            print("cannot test: this onnxruntime has no CUDAExecutionProvider")
            return 2
        providers.insert(0, "CUDAExecutionProvider")
    print("onnxruntime %s, graph_optimization_level=%s, providers %s" % (
        ort.__version__, options.get("graph_optimization_level", "all"), ",".join(providers)))
    try:
        session = ort.InferenceSession(os.path.join(HERE, "model.onnx"), so, providers=providers)
        feeds = {i.name: load(f) for i, f in zip(session.get_inputs(), spec["inputs"])}
        results = session.run(None, feeds)
    except Exception as e:  # the model is valid: a refusal is the failure
        print("FAIL: %s: %s" % (type(e).__name__, e))
        return 1
    code = 0
    for out, result in zip(spec["outputs"], results):
        verdict = judge(result, out)
        if verdict is None:
            print("output %s: ok" % out["name"])
        else:
            print("%s: output %s: %s" % ("FAIL" if verdict[0] == 1 else "CANNOT JUDGE",
                                         out["name"], verdict[1]))
            code = 1 if verdict[0] == 1 else (code or verdict[0])
    print("reproduces" if code == 1 else "does not reproduce" if code == 0 else "cannot judge")
    return code


if __name__ == "__main__":
    sys.exit(main())
