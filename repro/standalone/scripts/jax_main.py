


PLANTED_KEY = "inject_relu_bug_TESTING_ONLY"


def to_numpy(value):
    array = np.asarray(value)
    return array.astype(np.float32) if array.dtype == BF16 else array


def report(what, results, spec):
    """Judges every output; the exit code (0 ok, 1 fail, 3 cannot judge)."""
    code = 0
    for out, result in zip(spec["outputs"], results):
        # The type first: the value comparison below converts to the
        # reference's dtype, which would hide an output of another dtype.
        shape = list(load(out["reference"]).shape)
        want = np.dtype(DTYPES[out["dtype"]])
        if np.dtype(result.dtype) != want or list(np.shape(result)) != shape:
            print("%s: FAIL: output %s: got %s%s, the graph declares %s%s" % (
                what, out["name"], np.dtype(result.dtype), list(np.shape(result)), want, shape))
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


def xla_value(text):
    """An XLA debug option's value as jax's compiler_options takes it."""
    if text.lower() in ("true", "false"):
        return text.lower() == "true"
    try:
        return int(text)
    except ValueError:
        return text


def compiled_run(consts, inputs, jit, planted, compiler_options):
    fn = make_graph(consts, jit and planted == "accuracy")
    if not jit:
        return jax.block_until_ready(fn(*inputs))
    lowered = jax.jit(fn).lower(*inputs)
    if planted == "compile_error":
        raise RuntimeError("planted compile error (%s: reprokit's jax_xla adapter's own)"
                           % PLANTED_KEY)
    compiled = lowered.compile(compiler_options=compiler_options or None)
    return jax.block_until_ready(compiled(*inputs))


def eager_fp64(consts, inputs, spec):
    """The function op by op on float64 values: how far it is from expected fp64."""
    wide = lambda t: t.astype(jnp.float64) if jnp.issubdtype(t.dtype, jnp.floating) else t  # noqa
    try:
        results = make_graph({k: wide(v) for k, v in consts.items()}, False)(*map(wide, inputs))
    except Exception as e:  # informational only
        print("eager fp64: not run (%s: %s)" % (type(e).__name__, str(e).splitlines()[:1]))
        return
    for out, value in zip(spec["outputs"], results):
        f64 = load(out["expected_fp64"]).reshape(-1)
        got = to_numpy(value).astype(np.float64).reshape(-1)
        err = np.abs(got - f64)
        print("eager fp64: output %s: max |eager fp64 - expected fp64| = %.3g" % (
            out["name"], float(np.nanmax(err)) if err.size else 0.0))


def main():
    with open(os.path.join(HERE, "expected.json")) as f:
        spec = json.load(f)
    options = dict(spec["options"])
    jit = options.pop("jit", "true").lower() not in ("0", "false", "no", "off")
    precision = options.pop("jax_default_matmul_precision", "highest")
    planted = options.pop(PLANTED_KEY, "")
    compiler_options = {k: xla_value(v) for k, v in options.items()}
    try:
        device = jax.devices("cuda" if spec["device"] == "cuda" else "cpu")[0]
    except Exception as e:
        print("cannot test: jax has no %s device (%s)" % (spec["device"], str(e).splitlines()[:1]))
        return 2
    print("jax %s on %s: jit=%s, jax_default_matmul_precision=%s, XLA options %s" % (
        jax.__version__, device, "true" if jit else "false", precision,
        json.dumps(compiler_options)))
    if planted:
        print("PLANTED (TESTING ONLY): %s=%s is a fault of reprokit's jax_xla adapter, applied "
              "by this script to compiled code; no released XLA has it" % (PLANTED_KEY, planted))
    with jax.default_device(device), jax.default_matmul_precision(precision):
        inputs = [jax.device_put(load(name).astype(np.dtype(DTYPES[dtype])), device)
                  for name, dtype in zip(spec["inputs"], spec["input_dtypes"])]
        consts = {int(k): jax.device_put(load(v["file"]).astype(np.dtype(DTYPES[v["dtype"]])),
                                         device)
                  for k, v in spec.get("constants", {}).items()}
        report("eager (op by op)", jax.block_until_ready(make_graph(consts, False)(*inputs)),
               spec)
        eager_fp64(consts, inputs, spec)
        try:
            results = compiled_run(consts, inputs, jit, planted, compiler_options)
        except Exception as e:  # the graph is valid: a refusal is the failure
            print("FAIL: jax.jit raised %s: %s" % (type(e).__name__, str(e).splitlines()[:3]))
            print("reproduces")
            return 1
        code = report("compiled", results, spec)
    print("reproduces" if code == 1 else "does not reproduce" if code == 0 else "cannot judge")
    return code


if __name__ == "__main__":
    sys.exit(main())
