#!/usr/bin/env bash
# `reprokit fuzz` against external backends that misbehave on purpose
# (backends/testing/broken_backend, `--backend reprokit`), end to end:
#   - one finding per root cause: messages that name generated values,
#     numbers, lines and paths differing per graph sign once per cause;
#   - --backend-opt that no listed backend declares: exit 2 before any graph;
#   - a backend whose every judgement fails to run: exit 125, never "clean";
#   - time budgets calibrated per configuration and recorded; a timeout is a
#     finding only when it times out again alone with several times the
#     budget (a one-off hang is an unconfirmed timeout, counted, not found);
#   - NAME@DEVICE configurations.
set -euo pipefail
fail() { echo "FAIL: $*" >&2; exit 1; }
R="${TEST_SRCDIR}/reprokit/tools/reprokit"
B="${TEST_SRCDIR}/reprokit/backends/testing/broken_backend"
T="$(mktemp -d "${TEST_TMPDIR:-/tmp}/fuzzbackend.XXXXXX")"
cd "$T"
export REPROKIT_BACKEND_POOL=off

expect_exit() {  # CODE PATTERN CMD...
  local want="$1" pattern="$2"; shift 2
  set +e
  "$@" > out.txt 2>&1
  local got=$?
  set -e
  [[ $got == "$want" ]] || { cat out.txt; fail "exit $got, want $want: $*"; }
  grep -Eq -- "$pattern" out.txt || { cat out.txt; fail "no /$pattern/ in the output of: $*"; }
}
json() {  # FILE PYTHON-EXPRESSION-ON-j
  python3 -c "import json,sys; j=json.load(open(sys.argv[1])); print($2)" "$1"
}
small=(--ops add,mul,relu,sin,cos,neg,tanh --no-mixed-dtypes --nodes 5 --no-emit --quiet)

# Two causes (sin rejected at compile time, cos at run time), each message
# naming different values, lines and paths in every graph: two findings.
export BROKEN_BACKEND_STATE="$T/state.named"
BROKEN_BACKEND_MODE=named_errors expect_exit 1 "NEW" \
  "$R" fuzz --backends "$B" "${small[@]}" --iterations 60 -j 2 -o named
n="$(ls named/findings | wc -l)"
[[ $n == 2 ]] || { ls named/findings; fail "named_errors: $n findings, want 2 (one per cause)"; }
failures="$(json named/summary.json 'j["stats"]["failures"]')"
(( failures > 2 )) || fail "named_errors: only $failures failures; the dedup was not exercised"
grep -q "operator (Sin)" named/summary.md || fail "the sin cause is a finding"
grep -q "running Cos node" named/summary.md || fail "the cos cause is a finding"
# Judged and not applicable per configuration, and the calibrated budget.
[[ "$(json named/summary.json 'j["configurations"]["broken_backend"]["time_budget"]["calibrated"]')" == True ]] ||
  fail "the time budget is calibrated and recorded"
grep -q "| broken_backend | 60 |" named/summary.md || { cat named/summary.md; fail "judged per configuration"; }
grep -q "does not support op" named/summary.md || fail "not-applicable reasons listed"

# A wrong output shape is a miscompile: found, minimized and signed
# shape_mismatch (never a protocol error).
BROKEN_BACKEND_MODE=wrong_shape expect_exit 1 "NEW +shape_mismatch" \
  "$R" fuzz --backends "$B" "${small[@]}" --iterations 40 -o shape
python3 - shape/summary.json <<'PY' || fail "shape_mismatch findings"
import json, sys
j = json.load(open(sys.argv[1]))
# One cause (the first output gets a leading 1, whatever the graph): one
# finding, minimized down to an input returned as it is.
assert len(j["findings"]) == 1, [f["signature"] for f in j["findings"]]
assert j["stats"]["failures"] > 1, j["stats"]["failures"]
for f in j["findings"]:
    assert f["verdict_signature"].startswith("shape_mismatch:") and f["verdict_signature"].endswith(":rank:+1"), f
    assert f["minimized_nodes"] <= 1, f
    assert "the graph declares" in f["message"], f
PY

# Options no listed backend declares: refused before any graph.
expect_exit 2 "no backend in --backends declares this option.*NAME@DEVICE" \
  "$R" fuzz --backends reprokit --backend-opt device=cpu --iterations 5 --no-emit --quiet -o opt1
[[ ! -e opt1 ]] || fail "a refused campaign created its directory"
expect_exit 2 "--backend-opt nosuch: no backend" \
  "$R" fuzz --backends cpu,reprokit --backend-opt nosuch=1 --iterations 5 --no-emit --quiet -o opt2
expect_exit 2 "no external backend" \
  "$R" fuzz --backends cpu --backend-opt faults=relu:accuracy --iterations 5 --no-emit --quiet -o opt3

# Every judgement fails to run (a reply with one output too many): cannot
# test, exit 125, never a clean campaign.
BROKEN_BACKEND_MODE=wrong_outputs expect_exit 125 "cannot test" \
  "$R" fuzz --backends "$B" "${small[@]}" --iterations 20 -o broken
grep -q "broke the protocol" out.txt || fail "the first errors are shown"
# ... and with a fixed budget (no calibration) the campaign itself says so.
BROKEN_BACKEND_MODE=wrong_outputs expect_exit 125 "cannot test: (most judgements failed to run|no graph was judged)" \
  "$R" fuzz --backends "$B" "${small[@]}" --iterations 1000 --judge-timeout 10s -o broken2
[[ "$(json broken2/summary.json 'j["cannot_test"]')" == True ]] || fail "summary.json: cannot_test"
# It stopped once most of 64 judgements had failed: more graphs would not help.
[[ -n "$(json broken2/summary.json 'j["stopped_early"]')" ]] || fail "the campaign stops early"
graphs="$(json broken2/summary.json 'j["stats"]["graphs"]')"
(( graphs < 1000 )) || fail "the campaign went on for all $graphs graphs"
grep -q "Cannot test" broken2/summary.md || fail "summary.md says it cannot test"

# One hang, once: a timeout under the budget that does not time out again
# alone is counted as unconfirmed, not a finding.
export BROKEN_BACKEND_STATE="$T/state.hang_once"
BROKEN_BACKEND_MODE=hang_once expect_exit 0 "findings 0" \
  "$R" fuzz --backends "$B" "${small[@]}" --iterations 30 --judge-timeout 1s -o once
[[ "$(json once/summary.json 'j["stats"]["unconfirmed_timeouts"]')" == 1 ]] ||
  { cat once/summary.md; fail "the one-off hang is an unconfirmed timeout"; }
# A backend that always hangs: the timeout is confirmed alone and found.
BROKEN_BACKEND_MODE=hang expect_exit 1 "NEW +timeout" \
  "$R" fuzz --backends "$B" "${small[@]}" --iterations 12 --judge-timeout 1s \
  --minimize-time 5 -o hang
grep -q "timeout@compile" hang/summary.md || fail "the hang is signed timeout@compile"

# NAME@DEVICE: the configuration runs on the device it names.
expect_exit 0 "findings 0" "$R" fuzz --backends reprokit@cpu --iterations 4 --no-emit --quiet -o dev
[[ "$(json dev/summary.json 'j["options"]["configs"][0]')" == reprokit@cpu ]] ||
  fail "the configuration is named reprokit@cpu"
expect_exit 2 "device=nosuchdevice: expected cpu or cuda" \
  "$R" fuzz --backends reprokit@nosuchdevice --iterations 4 --no-emit --quiet -o dev2
# Real ONNX Runtime (backends/onnxruntime, on Node.js where tools/install_deps.sh
# installed it): the campaign that once "judged" 7.3 million graphs with a
# refused option is refused at once; on a named device it judges graphs.
export REPROKIT_ROOT="${TEST_SRCDIR}/reprokit"
if "$R" check "${TEST_SRCDIR}/reprokit/examples/mlp.rk" --backend onnxruntime >ort_probe.txt 2>&1 ||
   [[ $? == 1 ]]; then
  expect_exit 2 "--backend-opt device: no backend in --backends declares this option" \
    timeout 60 "$R" fuzz --backends onnxruntime --backend-opt device=cpu --time 270s --quiet -o ort_opt
  [[ ! -e ort_opt ]] || fail "the refused campaign created its directory"
  set +e
  "$R" fuzz --backends onnxruntime@cpu --iterations 60 --seed 7 --minimize-time 5 --no-emit \
    --quiet -o ort >out.txt 2>&1
  got=$?
  set -e
  [[ $got == 0 || $got == 1 ]] || { cat out.txt; fail "onnxruntime@cpu: exit $got"; }
  python3 - ort/summary.json <<'PY' || fail "onnxruntime@cpu summary"
import json, sys
j = json.load(open(sys.argv[1]))
c = j["configurations"]["onnxruntime@cpu"]
print("onnxruntime@cpu:", c)
assert c["judged"] >= 30 and c["errors"] == 0, c
assert c["time_budget"]["calibrated"] and c["time_budget"]["budget_seconds"] >= 20, c
assert not j["cannot_test"], j["cannot_test_reason"]
PY
else
  echo "onnxruntime is not installed here (tools/install_deps.sh): its cases skipped"
  cat ort_probe.txt
fi
echo PASS
