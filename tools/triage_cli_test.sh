#!/usr/bin/env bash
# `reprokit triage` end to end: the built-in compiler's planted faults (a pass
# fault is an optimizer bug from the level that runs the pass, an op fault a
# kernel bug at every level), a real ONNX Runtime 1.30 bug
# (FuseReluClip on double: an optimizer bug from level basic), the adapter's planted wrong value (every level: a kernel bug), a
# passing graph (does not reproduce, exit 0), --json, and bad input (exit 2).
# ONNX Runtime runs on Node.js (onnxruntime-node from tools/install_deps.sh).
set -uo pipefail
root="${TEST_SRCDIR:-}/${TEST_WORKSPACE:-}"
[[ -x "$root/tools/reprokit" ]] || root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
rk="$root/tools/reprokit"
[[ -x "$rk" ]] || rk="$root/bazel-bin/tools/reprokit"
export REPROKIT_ROOT="$root"
export REPROKIT_ORT_RUNTIME="${REPROKIT_ORT_RUNTIME:-node}"
tmp="$(mktemp -d "${TEST_TMPDIR:-/tmp}/triage_cli.XXXXXX")"
failures=0
fail() { echo "FAIL: $*"; failures=$((failures + 1)); }

# expect WHAT EXIT PATTERN ARGS...: `reprokit ARGS` exits EXIT and its output
# matches PATTERN (an extended regex).
expect() {
  local what="$1" want="$2" pattern="$3"
  shift 3
  timeout 600 "$rk" "$@" >"$tmp/out" 2>&1
  local got=$?
  echo "--- $what: exit $got"
  cat "$tmp/out"
  [[ $got == "$want" ]] || fail "$what: exit $got, expected $want"
  grep -Eq -- "$pattern" "$tmp/out" || fail "$what: output does not match /$pattern/"
}

cat >"$tmp/cse.rk" <<'G'
graph @g(%x: f32[4]) {
  %a = exp(%x) : f32[4]
  %b = exp(%x) : f32[4]
  return %a, %b
}
G
cat >"$tmp/relu.rk" <<'G'
graph @g(%x: f32[4]) {
  %y = relu(%x) : f32[4]
  return %y
}
G

expect "builtin pass fault" 1 'class: +optimizer bug' \
  triage "$tmp/cse.rk" --opt faults=cse:compile_error
grep -Eq 'because: +fails only with optimizations from level [12]$' "$tmp/out" ||
  fail "the pass fault's level is not named"
grep -Eq 'opt_level=0 +pass' "$tmp/out" || fail "opt_level=0 is not a passing row"
expect "builtin op fault" 1 'because: +fails at every level \(0, 1, 2\)' \
  triage "$tmp/relu.rk" --opt faults=relu:accuracy
grep -q 'class:    kernel bug' "$tmp/out" || fail "the op fault is not a kernel bug"
expect "builtin, nothing planted" 0 'class: +does not reproduce' triage "$tmp/relu.rk"

# The FuseReluClip rewrite of ONNX Runtime 1.30 rejects Relu -> Clip on double
# (backends/testdata/found/ort_relu_clip_f64.rk).
found="$tmp/ort_relu_clip_f64.rk"
cat >"$found" <<'G'
graph @fuzz(%v2: f64[]) {
  %1 = relu(%v2) : f64[]
  %2 = clip(%1) {max=1.0, min=-1.0} : f64[]
  return %2
}
G
expect "ORT FuseReluClip on double" 1 \
  'because: +fails only with optimizations from level basic' \
  triage "$found" --backend onnxruntime --opt graph_optimization_level=basic
grep -q 'class:    optimizer bug' "$tmp/out" || fail "FuseReluClip is not an optimizer bug"
grep -Eq 'graph_optimization_level=disable +pass' "$tmp/out" || fail "disable does not pass"
grep -Eq 'graph_optimization_level=extended +compile_error' "$tmp/out" ||
  fail "extended does not fail"
grep -Eq "builtin \(reprokit's compiler\) +pass" "$tmp/out" || fail "the built-in route row"
grep -Eq 'target: +onnxruntime 1\.30\.0' "$tmp/out" || fail "the target's version is not shown"

expect "ORT planted wrong value, JSON" 1 '"class": "kernel bug"' \
  triage "$tmp/relu.rk" --backend onnxruntime \
  --opt inject_bug_TESTING_ONLY=accuracy --json
grep -q '"real_failure": true' "$tmp/out" || fail "real_failure missing"
[[ $(grep -c '"probe":' "$tmp/out") -ge 6 ]] || fail "fewer than 6 probes in the JSON"

expect "unknown option" 2 'no_such_option|not declare|unknown' \
  triage "$tmp/relu.rk" --backend onnxruntime --opt no_such_option=1
expect "no argument" 2 'usage|BUNDLE' triage

echo "$failures failure(s)"
[[ $failures == 0 ]]
