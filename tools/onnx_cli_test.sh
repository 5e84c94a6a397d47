#!/usr/bin/env bash
# The ONNX commands end to end: `import` writes a bundle (weights in its
# store, node names kept) that check and capture take; `check` and `show`
# take a model directly; `export` writes a model ONNX's checker accepts (read
# back by Debian's python3-onnx) with its data; bad input exits 2 with a
# specific message and writes nothing.
set -euo pipefail
fail() { echo "FAIL: $*" >&2; exit 1; }
R="${TEST_SRCDIR}/reprokit/tools/reprokit"
python=/usr/bin/python3
"$python" -c "import onnx" 2>/dev/null || fail "$python cannot import onnx (tools/install_deps.sh installs python3-onnx)"
T="${TEST_TMPDIR:-$(mktemp -d)}"
cd "$T"
"$python" - <<'PY'
import numpy as np, onnx
from onnx import helper, TensorProto, numpy_helper
w = numpy_helper.from_array(np.random.RandomState(0).randn(16, 8).astype(np.float32), "W")
nodes = [helper.make_node("MatMul", ["x", "W"], ["h"], name="/fc/MatMul"),
         helper.make_node("Relu", ["h"], ["y"], name="/act/Relu")]
g = helper.make_graph(nodes, "mlp", [helper.make_tensor_value_info("x", TensorProto.FLOAT, ["batch", 16])],
                      [helper.make_tensor_value_info("y", TensorProto.FLOAT, ["batch", 8])], [w])
onnx.save(helper.make_model(g, opset_imports=[helper.make_opsetid("", 17)]), "mlp.onnx")
nodes = [helper.make_node("NonZero", ["x"], ["y"], name="nz")]
g = helper.make_graph(nodes, "bad", [helper.make_tensor_value_info("x", TensorProto.FLOAT, [4])],
                      [helper.make_tensor_value_info("y", TensorProto.INT64, [1, 4])])
onnx.save(helper.make_model(g, opset_imports=[helper.make_opsetid("", 17)]), "unsupported.onnx")
PY

expect_exit() {  # CODE PATTERN CMD...
  local want="$1" pattern="$2"; shift 2
  set +e; "$@" > out.txt 2>&1; local got=$?; set -e
  [[ $got == "$want" ]] || { cat out.txt; fail "$* exited $got, want $want"; }
  grep -q -- "$pattern" out.txt || { cat out.txt; fail "$*: no '$pattern'"; }
}

echo "== import"
expect_exit 2 "input 'x' dim 0 ('batch') is symbolic" "$R" import mlp.onnx -o b
[[ ! -e b ]] || fail "a failed import wrote b"
expect_exit 0 "imported mlp.onnx (opset 17)" "$R" import mlp.onnx -o b --input-shape "x=[2,16]"
grep -q 'sha256:' b/graph.rk || fail "the weights are inline"
grep -q '%act_Relu = relu' b/graph.rk || fail "node names lost"
grep -q '"act_Relu": "Relu /act/Relu"' b/repro.json || fail "no node origins in repro.json"
expect_exit 0 "verdict:   pass" "$R" check b
expect_exit 0 "verdict:   pass" "$R" check mlp.onnx --input-shape "x=[3,16]"
expect_exit 0 "relu" "$R" show mlp.onnx --input-shape "x=[1,16]"

echo "== bad input"
expect_exit 2 "NonZero (opset 17): 1 node, first 'nz'" "$R" import unsupported.onnx -o u
head -c 100 mlp.onnx > truncated.onnx
expect_exit 2 "not an ONNX model" "$R" check truncated.onnx
expect_exit 2 "which is not an input of the model" "$R" check mlp.onnx --input-shape "y=[1]"
expect_exit 2 "applies to ONNX models only" "$R" check b/graph.rk --input-shape "x=[1]"
[[ ! -e u && ! -e e.onnx ]] || fail "bad input wrote something"
# A directory that is not a bundle, or a bundle with a broken repro.json.
mkdir -p empty broken && echo "{bad" > broken/repro.json
expect_exit 2 "is a directory without a repro.json" "$R" check empty
expect_exit 2 "repro.json" "$R" check broken
grep -q "1 GiB" out.txt && fail "a broken bundle read as a huge graph file"

echo "== capture, minify, export"
expect_exit 0 "captured accuracy" "$R" capture mlp.onnx --input-shape "x=[2,16]" --opt faults=relu:accuracy -o bug
grep -q '"onnx": "mlp.onnx"' bug/repro.json || fail "capture lost the model's provenance"
expect_exit 0 "wrote" "$R" minify bug -o bug.min
grep -q '%act_Relu = relu' bug.min/graph.rk || fail "the minimized graph lost the model's names"
expect_exit 0 "and 1 inputs, 1 reference outputs" "$R" export bug.min --onnx -o repro.onnx
"$python" - <<'PY'
import onnx
from onnx import numpy_helper
m = onnx.load("repro.onnx")
onnx.checker.check_model(m)
assert [n.op_type for n in m.graph.node] == ["Relu"], m.graph.node
t = onnx.TensorProto(); t.ParseFromString(open("repro_data/input_0.pb", "rb").read())
assert numpy_helper.to_array(t).shape == tuple(d.dim_value for d in m.graph.input[0].type.tensor_type.shape.dim)
PY
echo "== round trip: import -> export -> import keeps the canonical graph (the bundle hash covers it)"
expect_exit 0 "wrote" "$R" export b --onnx -o again.onnx --no-data
h1=$(grep '"bundle_hash"' b/repro.json)
"$R" import again.onnx -o b2 > /dev/null
h2=$(grep '"bundle_hash"' b2/repro.json)
[[ -n "$h1" && "$h1" == "$h2" ]] || fail "canonical hash changed: '$h1' vs '$h2'"
echo PASS
