#!/usr/bin/env bash
# The real reprokit binary against real ONNX Runtime (the onnxruntime backend,
# on Node.js: onnxruntime-node from tools/install_deps.sh, so it runs on every
# machine): an ONNX model and the test graphs pass at every
# graph_optimization_level; the adapter's planted bugs are findings (accuracy,
# compile_error) and the accuracy one captures and minifies; a graph with an
# (op, dtype) pair the backend does not declare is not sent (exit 125, naming
# op, dtype and node); an option no one declares is refused (exit 2); and a
# bounded fuzz campaign against cpu and onnxruntime judges a real share of its
# graphs, printed.
# REPROKIT_ORT_RUNTIME=python runs it through Python's onnxruntime instead.
set -uo pipefail
root="${TEST_SRCDIR:-}/${TEST_WORKSPACE:-}"
[[ -x "$root/tools/reprokit" ]] || root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
rk="$root/tools/reprokit"
[[ -x "$rk" ]] || rk="$root/bazel-bin/tools/reprokit"
data="$root/backends/testdata"
export REPROKIT_ROOT="$root"
export REPROKIT_ORT_RUNTIME="${REPROKIT_ORT_RUNTIME:-node}"
tmp="$(mktemp -d "${TEST_TMPDIR:-/tmp}/ort_cli.XXXXXX")"
failures=0
fail() { echo "FAIL: $*"; failures=$((failures + 1)); }

# expect WHAT EXIT PATTERN ARGS...: `reprokit ARGS` exits EXIT and prints
# PATTERN (an extended regex) on stdout or stderr.
expect() {
  local what="$1" want="$2" pattern="$3"
  shift 3
  timeout 300 "$rk" "$@" >"$tmp/out" 2>&1
  local got=$?
  echo "--- $what: exit $got"
  grep -E '^(backend|verdict|message):|reprokit:' "$tmp/out" | head -4
  [[ $got == "$want" ]] || fail "$what: exit $got, expected $want"
  grep -Eq -- "$pattern" "$tmp/out" || fail "$what: output does not match /$pattern/"
}

expect "mlp.onnx" 0 "backend: +onnxruntime \\(onnxruntime 1\\.30\\.0 \\($REPROKIT_ORT_RUNTIME\\)\\)" \
  check "$data/mlp.onnx" --backend onnxruntime
for level in disable basic extended all; do
  # (layout.rk is left out: its seeded gather indices fall out of range, which
  # ONNX Runtime refuses and FORMAT.md reads as zeros: undefined behavior.)
  for graph in mlp.onnx elementwise.rk numerics.rk mlp.rk; do
    expect "$graph at graph_optimization_level=$level" 0 'verdict: +pass' \
      check "$data/$graph" --backend onnxruntime --opt graph_optimization_level=$level \
      --opt intra_op_num_threads=1
  done
done

# Planted bugs of the adapter: the harness sees them through the real library.
expect "planted accuracy bug" 1 'verdict: +accuracy' \
  check "$data/mlp.onnx" --backend onnxruntime --opt inject_bug_TESTING_ONLY=accuracy
expect "planted compile error" 1 'verdict: +compile_error.*|planted compile error' \
  check "$data/elementwise.rk" --backend onnxruntime --opt inject_bug_TESTING_ONLY=compile_error
expect "capture the planted bug" 0 'accuracy' \
  capture "$data/elementwise.rk" --backend onnxruntime \
  --opt inject_bug_TESTING_ONLY=accuracy -o "$tmp/bug"
expect "minify it" 0 'accuracy' minify "$tmp/bug" -o "$tmp/bug.min"
if [[ -f "$tmp/bug.min/graph.rk" ]]; then
  before=$(grep -c ' = ' "$tmp/bug/graph.rk")
  after=$(grep -c ' = ' "$tmp/bug.min/graph.rk")
  echo "minified: $before -> $after nodes"
  (( after < before )) || fail "minify did not shrink the graph ($before -> $after nodes)"
else
  fail "minify wrote no $tmp/bug.min/graph.rk"
fi

# A real ONNX Runtime 1.30 bug the fuzzer found (testdata/found/ort_relu_clip_f64.rk):
# a compile_error at basic optimizations and above, a pass without them.
expect "ORT FuseReluClip on double, optimizations off" 0 'verdict: +pass' \
  check "$data/found/ort_relu_clip_f64.rk" --backend onnxruntime --opt graph_optimization_level=disable
expect "ORT FuseReluClip on double, basic" 1 'verdict: +compile_error.*|FuseReluClip' \
  check "$data/found/ort_relu_clip_f64.rk" --backend onnxruntime --opt graph_optimization_level=basic
grep -q FuseReluClip "$tmp/out" || fail "the FuseReluClip compile error is not named"

# Not declared (op_dtypes: ONNX Runtime's CPU provider has no Erf on double):
# never sent, cannot_judge with op, dtype and node.
cat >"$tmp/erf64.rk" <<'EOF'
graph @g(%x: f64[4]) {
  %y = erf(%x) : f64[4]
  return %y
}
EOF
expect "erf on f64 is not sent" 125 "does not support op erf on f64 \\(at %y\\)" \
  check "$tmp/erf64.rk" --backend onnxruntime
expect "an undeclared option" 2 "has no option 'no_such_option'" \
  check "$data/mlp.onnx" --backend onnxruntime --opt no_such_option=1

# A bounded campaign: cpu and onnxruntime judge the same graphs.
fuzz_seconds="${ORT_FUZZ_SECONDS:-20}"
timeout 400 "$rk" fuzz -o "$tmp/fuzz" --backends cpu,onnxruntime --time "${fuzz_seconds}s" \
  --seed 7 --minimize-time 5 --no-emit --quiet >"$tmp/fuzz.out" 2>&1
got=$?
echo "--- fuzz --backends cpu,onnxruntime --time ${fuzz_seconds}s: exit $got"
[[ $got == 0 || $got == 1 ]] || { fail "fuzz: exit $got"; tail -20 "$tmp/fuzz.out"; }
if [[ -f "$tmp/fuzz/summary.json" ]]; then
  /usr/bin/python3 - "$tmp/fuzz/summary.json" <<'EOF' || fail "fuzz summary: see above"
import json, sys
summary = json.load(open(sys.argv[1]))
ort = summary["configurations"]["onnxruntime"]
generated, judged = ort["generated"], ort["judged"]
share = judged / generated if generated else 0.0
print("onnxruntime: %d graphs generated, %d judged (%.1f%%), %d not applicable, %d errors"
      % (generated, judged, 100 * share, ort.get("not_applicable", 0), ort.get("errors", 0)))
for reason, n in sorted(summary["stats"].get("not_applicable", {}).items(), key=lambda kv: -kv[1]):
    print("  not applicable %5d  %s" % (n, reason))
print("verdicts:", json.dumps(summary["stats"]["verdicts"], sort_keys=True))
ok = judged > 0 and share >= 0.5 and ort.get("errors", 0) == 0
# Reasons keep the backend's name and the op, and lose the node (one row a cause).
reasons = summary["stats"].get("not_applicable", {})
if not any("backend 'onnxruntime' does not support dtype bf16" == r.split(": ", 1)[1]
           for r in reasons):
    print("FAIL: no not-applicable row \"backend 'onnxruntime' does not support dtype bf16\"")
    ok = False
if not ok:
    print("FAIL: onnxruntime judged %d of %d graphs (at least half expected), %d errors"
          % (judged, generated, ort.get("errors", 0)))
sys.exit(0 if ok else 1)
EOF
else
  fail "fuzz wrote no summary.json"
  tail -20 "$tmp/fuzz.out"
fi

rm -rf "$tmp"
if [[ $failures != 0 ]]; then
  echo "$failures check(s) failed"
  exit 1
fi
echo "PASS"
