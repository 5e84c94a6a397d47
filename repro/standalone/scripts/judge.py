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


