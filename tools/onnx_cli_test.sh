#!/usr/bin/env bash
# The ONNX commands end to end: `import` writes a bundle (weights in its
# store, node names kept; seeded inputs or the model's own from .npy, .pb or
# raw files) that check and capture take; models of IR 10 and opset 20 (as
# PyTorch 2.11 writes them) and local functions import; an opset newer than
# known is refused per op; `check` and `show`
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

# What PyTorch 2.11's default exporter writes: IR 10, opset 20 (Debian's
# onnx 1.12 knows neither; ir_version and opset_import set by hand), with
# opset-18+ forms: ReduceMean's axes as an input, Gelu, Split's num_outputs.
x = np.random.RandomState(1).randn(2, 6).astype(np.float32)
nodes = [helper.make_node("ReduceMean", ["x", "axes"], ["m"], name="node_mean", keepdims=1),
         helper.make_node("Sub", ["x", "m"], ["c"], name="node_sub"),
         helper.make_node("Gelu", ["c"], ["g"], name="node_gelu", approximate="tanh"),
         helper.make_node("Split", ["g"], ["y0", "y1"], name="node_split", axis=1, num_outputs=2)]
g = helper.make_graph(nodes, "main_graph", [helper.make_tensor_value_info("x", TensorProto.FLOAT, [2, 6])],
                      [helper.make_tensor_value_info("y0", TensorProto.FLOAT, [2, 3]),
                       helper.make_tensor_value_info("y1", TensorProto.FLOAT, [2, 3])],
                      [numpy_helper.from_array(np.array([1], dtype=np.int64), "axes")])
m = helper.make_model(g, opset_imports=[helper.make_opsetid("", 20)], producer_name="pytorch",
                      producer_version="2.11.0")
m.ir_version = 10
onnx.save(m, "ir10.onnx")
np.save("x.npy", x)
np.save("x_int.npy", x.astype(np.int64))
x.tofile("x.raw")
with open("x.pb", "wb") as f:
    f.write(numpy_helper.from_array(x, "x").SerializeToString())
c = x - x.mean(axis=1, keepdims=True)
gelu = 0.5 * c * (1 + np.tanh(np.sqrt(2 / np.pi) * (c + 0.044715 * c ** 3)))
with open("expected_y0.txt", "w") as f:
    f.write("%.4f" % gelu[0, 0])
# An opset newer than the importer knows.
m.opset_import[0].version = 22
onnx.save(m, "opset22.onnx")
# A local function (what exporters write for modules when they do not
# inline): pkg.custom::Swish(x) = x * Sigmoid(x).
f = helper.make_function("pkg.custom", "Swish", ["a"], ["b"],
                         [helper.make_node("Sigmoid", ["a"], ["s"]),
                          helper.make_node("Mul", ["a", "s"], ["b"])],
                         [helper.make_opsetid("", 20)])
g = helper.make_graph([helper.make_node("Swish", ["x"], ["y"], name="node_swish", domain="pkg.custom")],
                      "fn", [helper.make_tensor_value_info("x", TensorProto.FLOAT, [2, 6])],
                      [helper.make_tensor_value_info("y", TensorProto.FLOAT, [2, 6])])
m = helper.make_model(g, opset_imports=[helper.make_opsetid("", 20), helper.make_opsetid("pkg.custom", 1)],
                      functions=[f])
m.ir_version = 10
onnx.save(m, "function.onnx")
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

echo "== IR 10, opset 20, the model's own inputs"
expect_exit 0 "imported ir10.onnx (opset 20, pytorch 2.11.0)" "$R" import ir10.onnx -o b10 --inputs x.npy
grep -q "with the given inputs" out.txt || fail "import did not say it stored the given inputs"
grep -q '"seed"' b10/repro.json && fail "a bundle with given inputs records a seed"
"$R" run b10 --values 1 | grep -v "^bundle" > run_npy.txt || fail "run b10"
grep -q -- "$(cat expected_y0.txt)" run_npy.txt || { cat run_npy.txt; fail "y0[0,0] is not $(cat expected_y0.txt) (numpy's tanh gelu of the centered input)"; }
for f in x.pb x.raw; do
  "$R" import ir10.onnx -o "b_${f#x.}" --inputs "$f" > /dev/null || fail "import --inputs $f"
  "$R" run "b_${f#x.}" --values 1 | grep -v "^bundle" > run_other.txt
  diff -q run_npy.txt run_other.txt > /dev/null || { diff run_npy.txt run_other.txt; fail "--inputs $f read other values than x.npy"; }
done
expect_exit 0 "verdict:   pass" "$R" check b10
expect_exit 2 "x_int.npy: holds i64\[2,6\], but input %x is f32\[2,6\]" "$R" import ir10.onnx -o bi --inputs x_int.npy
expect_exit 2 "the graph has 1 inputs, 2 files given" "$R" import ir10.onnx -o bi --inputs x.npy --inputs x.npy
expect_exit 2 "exclude each other" "$R" import ir10.onnx -o bi --inputs x.npy --seed 3
expect_exit 2 "needs 48" "$R" import ir10.onnx -o bi --inputs expected_y0.txt
[[ ! -e bi ]] || fail "a refused import wrote bi"
expect_exit 2 "ReduceMean (opset 22): this build knows ReduceMean up to opset 21" "$R" import opset22.onnx -o b22
expect_exit 0 "imported function.onnx (opset 20)" "$R" import function.onnx -o bf
grep -q "sigmoid(" bf/graph.rk || fail "the local function was not inlined"
expect_exit 0 "verdict:   pass" "$R" check bf

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
echo "== a weight over the inline-literal limit (an embedding table of 4,194,312 elements)"
"$python" - <<'PY'
import numpy as np, onnx
from onnx import helper, TensorProto, numpy_helper
table = np.arange(4194312, dtype=np.float32).reshape(524289, 8) / 1024.0
g = helper.make_graph([helper.make_node("Gather", ["table", "ids"], ["y"], name="embed")], "embed",
                      [helper.make_tensor_value_info("ids", TensorProto.INT64, [3])],
                      [helper.make_tensor_value_info("y", TensorProto.FLOAT, [3, 8])],
                      [numpy_helper.from_array(table, "table")])
onnx.save(helper.make_model(g, opset_imports=[helper.make_opsetid("", 17)]), "embed.onnx")
PY
expect_exit 0 "verdict:   pass" "$R" check embed.onnx
echo PASS
