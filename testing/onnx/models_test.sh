#!/usr/bin/env bash
# Three real architectures (GPT-2-, ResNet- and BERT-style, built by
# make_models.py with Debian's python3-onnx) through the whole harness:
# `check` passes with no fault; a planted fault in an op each contains is
# captured, minified to a graph of a few nodes that contains that op and is
# named after the model's own nodes, and emitted as a Bazel test that fails
# with the fault and passes without it (a real nested `bazel test`).
set -euo pipefail

fail() { echo "FAIL: $*" >&2; exit 1; }
runfile() { local p="${TEST_SRCDIR}/reprokit/$1"; [[ -e "$p" ]] || fail "missing runfile $1"; echo "$p"; }
python=/usr/bin/python3
"$python" -c "import onnx" 2>/dev/null || fail "$python cannot import onnx (tools/install_deps.sh installs python3-onnx)"

REPROKIT="$(runfile tools/reprokit)"
RUNNER_SO="$(runfile repro/emit/libreprokit_runner.so)"
ROOT="$(dirname "$(dirname "$(readlink -f "$(runfile repro/defs.bzl)")")")"
T="${TEST_TMPDIR:-$(mktemp -d)}"
"$python" "$(runfile testing/onnx/make_models.py)" "$T/models"

gpt2=("$T/models/gpt2.onnx" --input-shape "ids=[1,16]")
resnet=("$T/models/resnet.onnx" --input-shape "image=[1,3,32,32]")
bert=("$T/models/bert.onnx" --input-shape "ids=[1,16]" --input-shape "segments=[1,16]"
      --input-shape "mask=[1,16]")

echo "== check with no fault"
for m in gpt2 resnet bert; do
  declare -n args="$m"
  "$REPROKIT" check "${args[@]}" > "$T/$m.check" || { cat "$T/$m.check"; fail "$m: check"; }
  grep -q "verdict:   pass" "$T/$m.check" || fail "$m: not pass"
done

# capture + minify one planted fault; the minimized graph is small, contains
# the op, and names a node of the model.
shrink() {
  local m="$1" fault="$2" op="$3" node="$4"
  declare -n args="$m"
  "$REPROKIT" capture "${args[@]}" --opt "faults=$fault" -o "$T/$m.bug" > "$T/$m.capture"
  grep -q "captured" "$T/$m.capture" || fail "$m: capture"
  "$REPROKIT" minify "$T/$m.bug" -o "$T/$m.min" > "$T/$m.minify" 2>&1 || { cat "$T/$m.minify"; fail "$m: minify"; }
  cat "$T/$m.minify"
  local ops
  ops=$(grep -c ' = ' "$T/$m.min/graph.rk")
  (( ops <= 4 )) || { cat "$T/$m.min/graph.rk"; fail "$m: $ops nodes left"; }
  grep -q "= $op(" "$T/$m.min/graph.rk" || fail "$m: no $op in the minimized graph"
  grep -q "%$node" "$T/$m.min/graph.rk" || { cat "$T/$m.min/graph.rk"; fail "$m: no node named $node"; }
}
echo "== planted faults"
shrink gpt2 gather:accuracy gather wte_Gather
shrink resnet conv2d:accuracy conv2d 'layer[0-9.]*_conv[0-9]_Conv\|stem_Conv\|downsample_Conv'
shrink bert matmul:crash matmul encoder.layer

echo "== emit and bazel test"
WS="$T/ws"
OB="$T/ob"
outer_env=(-u RUNFILES_DIR -u RUNFILES_MANIFEST_FILE -u RUNFILES_MANIFEST_ONLY -u JAVA_RUNFILES
  -u PYTHON_RUNFILES -u XML_OUTPUT_FILE $(compgen -e | grep '^TEST_' | sed 's/^/-u /'))
nested() { (cd "$WS" && env "${outer_env[@]}" bazel --output_base="$OB" --max_idle_secs=60 "$@"); }
trap '(cd "$WS" 2>/dev/null && bazel --output_base="$OB" shutdown) >/dev/null 2>&1 || true' EXIT
for m in gpt2 resnet bert; do
  "$REPROKIT" emit "$T/$m.min" --workspace "$WS" --reprokit "$ROOT" --prebuilt-runner "$RUNNER_SO" \
    --package "repros/$m" > /dev/null
  "$REPROKIT" emit "$T/$m.min" --workspace "$WS" --reprokit "$ROOT" --prebuilt-runner "$RUNNER_SO" \
    --package "repros/${m}_fixed" --opt faults= > /dev/null
done
set +e
nested test --keep_going --test_summary=short //repros/... > "$T/test.log" 2>&1
code=$?
set -e
status() { grep -E "^//repros/$1:$1 " "$T/test.log" | awk '{print $2}'; }
for m in gpt2 resnet bert; do
  [[ "$(status $m)" == FAILED ]] || { tail -30 "$T/test.log"; fail "$m repro should fail with the fault"; }
  [[ "$(status ${m}_fixed)" == PASSED ]] || { tail -30 "$T/test.log"; fail "${m}_fixed should pass"; }
done
[[ $code == 3 ]] || fail "bazel test exited $code, want 3"
echo "PASS"
