#!/usr/bin/env bash
# `reprokit export --standalone`, end to end, with the target alone:
# - ONNX Runtime on Node.js (repro.js): a real ONNX Runtime 1.30 bug
#   (FuseReluClip on double, backends/testdata/found/ort_relu_clip_f64.rk)
#   captured at graph_optimization_level=basic exits 1 naming the error, and 0
#   once expected.json says disable; a passing bundle exits 0, and 1 with the
#   discrepancy printed once its expected values are perturbed (a wrong
#   result, simulated);
# - the same with repro.py where Python's onnxruntime imports (skipped with
#   the reason otherwise); repro.py is valid Python either way;
# - Inductor: repro.py compiles, and on a torch without torch.compile (Debian's
#   1.13) runs its eager part, judges it and says it could not compile (exit 2);
# - XLA: the jax repro.py compiles, names its target, and without jax says it
#   cannot test (exit 2);
# - bad input: a built-in bundle without --target, a non-empty DIR (exit 2).
set -uo pipefail
root="${TEST_SRCDIR:-}/${TEST_WORKSPACE:-}"
[[ -x "$root/tools/reprokit" ]] || root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
rk="$root/tools/reprokit"
[[ -x "$rk" ]] || rk="$root/bazel-bin/tools/reprokit"
export REPROKIT_ROOT="$root"
export REPROKIT_ORT_RUNTIME="${REPROKIT_ORT_RUNTIME:-node}"
serve_js="$(readlink -f "$root/backends/onnxruntime/serve_node.js")"
export NODE_PATH="$(dirname "$serve_js")/../../third_party/onnxruntime_node/node_modules"
py=/usr/bin/python3
tmp="$(mktemp -d "${TEST_TMPDIR:-/tmp}/standalone_cli.XXXXXX")"
failures=0
fail() { echo "FAIL: $*"; failures=$((failures + 1)); }

# run WHAT EXIT PATTERN CMD...: CMD exits EXIT and prints PATTERN (ERE).
run() {
  local what="$1" want="$2" pattern="$3"
  shift 3
  timeout 600 "$@" >"$tmp/out" 2>&1
  local got=$?
  echo "--- $what: exit $got"
  cat "$tmp/out"
  [[ $got == "$want" ]] || fail "$what: exit $got, expected $want"
  grep -Eq -- "$pattern" "$tmp/out" || fail "$what: output does not match /$pattern/"
}

# set_level DIR LEVEL: the standalone's settings at another optimization level.
set_level() {
  sed -i "s/\"graph_optimization_level\": \"[a-z]*\"/\"graph_optimization_level\": \"$2\"/" \
    "$1/expected.json"
}

# perturb FILE: the last element of an .npy of f32 or f64 moved by 100.
perturb() {
  node -e '
    const fs = require("fs"); const b = fs.readFileSync(process.argv[1]);
    const f64 = b.toString("latin1", 0, 128).includes("<f8");
    const at = b.length - (f64 ? 8 : 4);
    if (f64) b.writeDoubleLE(b.readDoubleLE(at) + 100, at); else b.writeFloatLE(b.readFloatLE(at) + 100, at);
    fs.writeFileSync(process.argv[1], b);' "$1"
}

cat >"$tmp/relu_clip.rk" <<'G'
graph @fuzz(%v2: f64[]) {
  %1 = relu(%v2) : f64[]
  %2 = clip(%1) {max=1.0, min=-1.0} : f64[]
  return %2
}
G
cat >"$tmp/mlp.rk" <<'G'
graph @mlp(%x: f32[2,3], %w: f32[3,4]) {
  %h = matmul(%x, %w) : f32[2,4]
  %r = relu(%h) : f32[2,4]
  %s = reduce_sum(%r) {axes=[1], keepdim=false} : f32[2]
  %c = cast(%s) {dtype=i32} : i32[2]
  return %r, %s, %c
}
G

# A real bug: captured at basic, where it reproduces.
run "capture FuseReluClip" 0 'compile_error' \
  "$rk" capture "$tmp/relu_clip.rk" --backend onnxruntime \
  --opt graph_optimization_level=basic -o "$tmp/bug"
run "export it" 0 'model\.onnx.*repro\.py.*repro\.js' \
  "$rk" export "$tmp/bug" --standalone "$tmp/bug.sa"
run "repro.js: the bug is present" 1 'FAIL: .*(FuseReluClip|Clip)' node "$tmp/bug.sa/repro.js"
grep -q 'graph_optimization_level=basic' "$tmp/out" || fail "repro.js does not say its level"
set_level "$tmp/bug.sa" disable
run "repro.js: without optimizations" 0 'does not reproduce' node "$tmp/bug.sa/repro.js"
set_level "$tmp/bug.sa" basic

# A passing bundle, then a wrong result simulated by perturbing the expected values.
run "capture a passing graph" 0 'pass' \
  "$rk" capture "$tmp/mlp.rk" --backend onnxruntime -o "$tmp/ok"
run "export it" 0 'expected\.json' "$rk" export "$tmp/ok" --standalone "$tmp/ok.sa"
run "repro.js: passes" 0 'output s: ok' node "$tmp/ok.sa/repro.js"
cp -r "$tmp/ok.sa" "$tmp/wrong.sa"
for f in reference_1.npy expected_1.npy; do perturb "$tmp/wrong.sa/$f"; done
run "repro.js: a wrong value" 1 'FAIL: output s: rmse vs fp64 .* worst element 1' \
  node "$tmp/wrong.sa/repro.js"

# repro.py: valid Python always; run where Python's onnxruntime imports.
for d in bug.sa ok.sa; do
  "$py" -m py_compile "$tmp/$d/repro.py" || fail "$d/repro.py does not compile"
done
if "$py" -c 'import onnxruntime, numpy' 2>/dev/null; then
  run "repro.py: the bug is present" 1 'FAIL: ' "$py" "$tmp/bug.sa/repro.py"
  run "repro.py: passes" 0 'does not reproduce' "$py" "$tmp/ok.sa/repro.py"
  run "repro.py: a wrong value" 1 'FAIL: output s: rmse' "$py" "$tmp/wrong.sa/repro.py"
else
  echo "SKIP repro.py runs: $py has no onnxruntime (the Node.js runs above cover the model and values)"
fi

# Inductor.
run "export torch" 0 'repro\.py' \
  "$rk" export "$tmp/ok" --standalone "$tmp/torch.sa" --target torch_inductor
"$py" -m py_compile "$tmp/torch.sa/repro.py" || fail "the torch repro.py does not compile"
grep -q 'torch.matmul(v0_x, v1_w)' "$tmp/torch.sa/repro.py" || fail "no matmul line in repro.py"
if "$py" -c 'import torch, numpy; assert not hasattr(torch, "compile")' 2>/dev/null; then
  run "torch repro.py, no torch.compile" 2 'cannot compile: torch .* has no torch\.compile' \
    "$py" "$tmp/torch.sa/repro.py"
  grep -q 'eager: output r: ok' "$tmp/out" || fail "the eager run is not judged"
  grep -q 'eager fp64: output s: max' "$tmp/out" || fail "no eager fp64 line"
elif "$py" -c 'import torch, numpy' 2>/dev/null; then
  run "torch repro.py" 0 'compiled: output r: ok' "$py" "$tmp/torch.sa/repro.py"
else
  echo "SKIP torch repro.py run: $py has no torch"
fi
# An output of another dtype with the same values fails (it once passed: the
# values were converted to the reference's dtype before the comparison).
if "$py" -c 'import torch, numpy' 2>/dev/null; then
  run "torch repro.py: another dtype is a failure" 0 'right 0, wrong dtype 1, wrong shape 1' \
    "$py" -c "
import json, runpy, torch
g = runpy.run_path('$tmp/torch.sa/repro.py', run_name='repro')
out = json.load(open('$tmp/torch.sa/expected.json'))['outputs'][0]
t = torch.from_numpy(g['load'](out['reference'])).to(g['DTYPES'][out['dtype']])
spec = {'outputs': [out]}
print('right %d, wrong dtype %d, wrong shape %d' % (g['report']('t', [t], spec),
      g['report']('t', [t.double()], spec), g['report']('t', [t.reshape(-1)[:1]], spec)))"
fi

# XLA (jax): a jax repro.py of the same bundle; valid Python always; run where
# jax imports, else it must say it cannot test (exit 2).
run "export jax" 0 'repro\.py' \
  "$rk" export "$tmp/ok" --standalone "$tmp/jax.sa" --target jax_xla
"$py" -m py_compile "$tmp/jax.sa/repro.py" || fail "the jax repro.py does not compile"
grep -q 'jnp.matmul(v0_x, v1_w)' "$tmp/jax.sa/repro.py" || fail "no matmul line in the jax repro.py"
grep -q '"target": "jax_xla"' "$tmp/jax.sa/expected.json" || fail "expected.json does not name jax_xla"
if "$py" -c 'import jax, numpy' 2>/dev/null; then
  run "jax repro.py" 0 'compiled: output r: ok' "$py" "$tmp/jax.sa/repro.py"
else
  run "jax repro.py, no jax" 2 "cannot test: .*jax" "$py" "$tmp/jax.sa/repro.py"
fi

# Bad input.
run "capture builtin" 0 'pass' "$rk" capture "$tmp/mlp.rk" -o "$tmp/builtin"
run "builtin bundle, no --target" 2 'no standalone form for target "builtin"' \
  "$rk" export "$tmp/builtin" --standalone "$tmp/builtin.sa"
run "non-empty DIR" 2 'not empty' "$rk" export "$tmp/ok" --standalone "$tmp/ok.sa"

echo "$failures failure(s)"
[[ $failures == 0 ]]
