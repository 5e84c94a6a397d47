#!/usr/bin/env bash
# The real reprokit binary against the deliberately broken backend
# (backends/testing/broken_backend), one mode at a time: a correct backend
# passes, planted bugs are findings (accuracy, nondeterministic, crash with
# the backend's stderr, timeout naming the phase, a wrong output shape or
# dtype as shape_mismatch), and a backend that breaks the protocol is an
# error naming the backend and what was wrong (exit 125), never a hang. Then capture + minify of the relu bug through the backend.
set -uo pipefail
root="${TEST_SRCDIR:-}/${TEST_WORKSPACE:-}"
[[ -x "$root/tools/reprokit" ]] || root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
rk="$root/tools/reprokit"
[[ -x "$rk" ]] || rk="$root/bazel-bin/tools/reprokit"
backend="$root/backends/testing/broken_backend"
graph="$root/backends/testdata/elementwise.rk"
tmp="$(mktemp -d "${TEST_TMPDIR:-/tmp}/broken.XXXXXX")"
failures=0
fail() { echo "FAIL: $*"; failures=$((failures + 1)); }

# expect MODE EXIT PATTERN [flags]: `check` with the backend in MODE exits EXIT
# and prints PATTERN (an extended regex) on stdout or stderr.
expect() {
  local mode="$1" want="$2" pattern="$3"
  shift 3
  BROKEN_BACKEND_MODE="$mode" BROKEN_BACKEND_STATE="$tmp/state.$mode" \
    timeout 120 "$rk" check "$graph" --backend "$backend" "$@" >"$tmp/out" 2>&1
  local got=$?
  echo "--- $mode: exit $got"
  head -c 600 "$tmp/out" | grep -E 'verdict|message|reprokit:' || true
  [[ $got == "$want" ]] || fail "$mode: exit $got, expected $want"
  grep -Eq "$pattern" "$tmp/out" || fail "$mode: output does not match /$pattern/"
}

expect ok 0 'verdict: +pass'
expect stderr_flood 0 'verdict: +pass'
expect relu_bug 1 'verdict: +accuracy'
expect nondeterministic 1 'verdict: +nondeterministic'
expect segv 1 "died from SIGSEGV.*about to crash"
expect hang 1 'timed out after 2s in compile' --timeout 2
expect garbage 125 "broken_backend'.*RKBP"
expect bad_header 125 "broken_backend'.*not JSON"
expect huge_header 125 "broken_backend'.*1073741824 bytes"
expect die_at_start 125 "broken_backend'.*before its hello.*dying at start"
expect wrong_outputs 125 "broken_backend'.*3 outputs"
# A wrong shape or dtype is the compiler's wrong answer: a verdict naming
# both types; another number of outputs is a broken message.
expect wrong_shape 1 "verdict: +shape_mismatch.*|as f32\[1,4,8\]; the graph declares f32\[4,8\]"
expect wrong_dtype 1 "as f64\[4,8\]; the graph declares f32\[4,8\]"
# Another protocol version and a missing backend cannot be used as named:
# exit 2 (docs/BACKENDS.md).
expect_error() {
  local what="$1" pattern="$2"
  shift 2
  timeout 120 "$rk" check "$graph" "$@" >"$tmp/out" 2>&1
  local got=$?
  echo "--- $what: exit $got"
  cat "$tmp/out"
  [[ $got == 2 ]] || fail "$what: exit $got, expected 2"
  grep -Eq "$pattern" "$tmp/out" || fail "$what: output does not match /$pattern/"
}
BROKEN_BACKEND_MODE=wrong_version expect_error wrong_version \
  "broken_backend'.*protocol version 99" --backend "$backend"
expect_error "missing backend" "backend '/no/such/backend'" --backend /no/such/backend

# The relu bug through capture and minify: one node left, the relu.
export BROKEN_BACKEND_MODE=relu_bug
"$rk" capture "$graph" --backend "$backend" -o "$tmp/bug" >"$tmp/capture.out" 2>&1 ||
  [[ $? == 1 ]] || fail "capture: $(cat "$tmp/capture.out")"
if "$rk" minify "$tmp/bug" -o "$tmp/bug.min" >"$tmp/minify.out" 2>&1; then
  nodes="$(grep -cE '^ *%[A-Za-z0-9_.]+ = ' "$tmp/bug.min/graph.rk")"
  grep -q 'relu(' "$tmp/bug.min/graph.rk" || fail "minified graph has no relu"
  [[ $nodes == 1 ]] || fail "minified graph has $nodes nodes, expected 1"
  cat "$tmp/bug.min/graph.rk"
else
  fail "minify: $(tail -5 "$tmp/minify.out")"
fi

# Drift: a relu bug (a miscompile) and, upstream of the same output, an exp off
# by its f32 rounding (precision: the graph promoted to f64 is exact). With the
# check deferred at capture and while minimizing, the exp alone passed for the
# failure; minify sees the drift at the end and searches again with the check
# on every candidate, ending on the relu.
cat > "$tmp/drift.rk" <<'RK'
graph @drift(%x: f32[8]) {
  %r = relu(%x) : f32[8]
  %e = exp(%x) : f32[8]
  %o = add(%r, %e) : f32[8]
  return %o
}
RK
export BROKEN_BACKEND_MODE=relu_bug_rounding
"$rk" capture "$tmp/drift.rk" --backend "$backend" -o "$tmp/drift" >"$tmp/capture.out" 2>&1 ||
  [[ $? == 1 ]] || fail "drift capture: $(cat "$tmp/capture.out")"
if "$rk" minify "$tmp/drift" -o "$tmp/drift.min" --json >"$tmp/minify.out" 2>&1; then
  grep -q 'relu(' "$tmp/drift.min/graph.rk" ||
    fail "drift: the minimized graph has no relu: $(cat "$tmp/drift.min/graph.rk")"
  grep -q 'exp(' "$tmp/drift.min/graph.rk" && fail "drift: the exp's rounding was kept"
  grep -q '"drift_rerun"' "$tmp/minify.out" || fail "drift: no second search reported"
  grep -q '"signature": "accuracy:miscompile:relu:f32"' "$tmp/minify.out" ||
    fail "drift: $(grep signature "$tmp/minify.out")"
  cat "$tmp/drift.min/graph.rk"
else
  fail "drift minify: $(tail -5 "$tmp/minify.out")"
fi

rm -rf "$tmp"
if [[ $failures != 0 ]]; then
  echo "$failures failure(s)"
  exit 1
fi
echo PASS
