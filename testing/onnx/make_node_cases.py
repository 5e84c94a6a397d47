#!/usr/bin/python3
"""Writes ONNX's own backend node test cases to a directory.

Debian's python3-onnx ships the generators of ONNX's node tests
(onnx/backend/test/case/node/*.py): each builds a model with onnx.helper and
computes the expected outputs with numpy. This runs them (no network, nothing
checked in) and writes every case in ONNX's test-data layout:

  OUT/<case>/model.onnx
  OUT/<case>/test_data_set_<k>/input_<i>.pb, output_<i>.pb
  OUT/manifest.json   [{"name", "op", "rtol", "atol", "tensors", "must_run"}]

"op" is the ONNX op the case tests (for an "_expanded" case, the op whose
function body it spells out). The cases of opsets 18 to 21
(newer_opset_cases.py, IR version 10) follow ONNX's own; they are
"must_run": onnx_conformance counts one it skips as a failure.

Usage: make_node_cases.py OUT
"""
import json
import os
import sys
import warnings

import numpy as np

# The generators of ONNX 1.12 use aliases that NumPy 1.24 removed
# (np.float, np.int, ...); restore them for the generators only.
warnings.simplefilter("ignore")
for alias, value in (("float", float), ("int", int), ("bool", bool),
                     ("object", object), ("complex", complex), ("str", str)):
    try:
        getattr(np, alias)
    except AttributeError:
        setattr(np, alias, value)

import onnx  # noqa: E402
from onnx import numpy_helper  # noqa: E402
import onnx.backend.test.case.node as node_cases  # noqa: E402

import newer_opset_cases  # noqa: E402


def tensor_proto(value, name):
    if isinstance(value, np.ndarray) or np.isscalar(value):
        return numpy_helper.from_array(np.asarray(value), name)
    return None  # sequences, optionals, maps: not tensors


def write_case(out, name, model, data_sets):
    """Writes model.onnx and test_data_set_K; False if a value is no tensor."""
    directory = os.path.join(out, name)
    os.makedirs(directory, exist_ok=True)
    onnx.save(model, os.path.join(directory, "model.onnx"))
    tensors_ok = True
    for k, (inputs, outputs) in enumerate(data_sets):
        data = os.path.join(directory, "test_data_set_%d" % k)
        os.makedirs(data, exist_ok=True)
        for kind, values, infos in (("input", inputs, model.graph.input),
                                    ("output", outputs, model.graph.output)):
            for i, value in enumerate(values):
                name = infos[i].name if i < len(infos) else ""
                proto = tensor_proto(value, name)
                if proto is None:
                    tensors_ok = False
                    continue
                with open(os.path.join(data, "%s_%d.pb" % (kind, i)), "wb") as f:
                    f.write(proto.SerializeToString())
    return tensors_ok


def main():
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    out = sys.argv[1]
    os.makedirs(out, exist_ok=True)
    cases = node_cases.collect_testcases(None)
    ops = {c.name: c.model.graph.node[0].op_type for c in cases if c.model.graph.node}
    manifest = []
    for case in cases:
        if case.kind != "node" or not case.model.graph.node:
            continue
        op = ops[case.name]
        if case.name.endswith("_expanded") and case.name[: -len("_expanded")] in ops:
            op = ops[case.name[: -len("_expanded")]]
        tensors_ok = write_case(out, case.name, case.model, case.data_sets)
        manifest.append({"name": case.name, "op": op, "rtol": float(case.rtol),
                         "atol": float(case.atol), "tensors": tensors_ok})
    for name, op, model, inputs, outputs in newer_opset_cases.cases():
        write_case(out, name, model, [(inputs, outputs)])
        manifest.append({"name": name, "op": op, "rtol": 1e-4, "atol": 1e-6, "tensors": True,
                         "must_run": True})
    with open(os.path.join(out, "manifest.json"), "w") as f:
        json.dump(manifest, f, indent=0)
    print("wrote %d cases to %s" % (len(manifest), out))


if __name__ == "__main__":
    main()
