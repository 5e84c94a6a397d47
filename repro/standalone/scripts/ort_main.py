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
