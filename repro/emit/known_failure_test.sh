#!/usr/bin/env bash
# known_failure = True on a real bug of an external target, both polarities:
# the emitted repro of ONNX Runtime 1.30's FuseReluClip failure on double
# (testdata/ort_known_failure, `reprokit emit --known-failure` of a bundle
# captured with --backend onnxruntime at graph_optimization_level=basic) passes
# while the bug is present and names the installed version; judged with the
# optimization off (where ONNX Runtime runs it right, as a fixed version
# would), it fails and says "fixed in ...? remove known_failure".
set -uo pipefail
root="${TEST_SRCDIR:-}/${TEST_WORKSPACE:-}"
bin="$root/repro/emit/testdata/ort_known_failure/ort_known_failure"
export REPROKIT_ORT_RUNTIME="${REPROKIT_ORT_RUNTIME:-node}"
failures=0
fail() { echo "FAIL: $*"; failures=$((failures + 1)); }

"$bin" --mode=test --known_failure --timeout=120 >"$TEST_TMPDIR/out" 2>&1
code=$?
cat "$TEST_TMPDIR/out"
[[ $code == 0 ]] || fail "still present: exit $code, expected 0"
grep -Eq 'PASS: the known failure is still present in onnxruntime 1\.30\.[0-9]+' "$TEST_TMPDIR/out" ||
  fail "the installed version is not named"

"$bin" --mode=test --known_failure --timeout=120 \
  --opt=backend_options=graph_optimization_level:disable >"$TEST_TMPDIR/out" 2>&1
code=$?
cat "$TEST_TMPDIR/out"
[[ $code == 1 ]] || fail "fixed: exit $code, expected 1"
grep -Eq 'FAIL: the known failure no longer reproduces: fixed in onnxruntime 1\.30\.[0-9]+ \(node\)\? remove known_failure' \
  "$TEST_TMPDIR/out" || fail "no 'fixed in ...? remove known_failure'"

echo "$failures failure(s)"
[[ $failures == 0 ]]
