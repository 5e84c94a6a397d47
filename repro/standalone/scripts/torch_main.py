

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
