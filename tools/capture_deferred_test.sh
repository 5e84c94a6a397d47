#!/usr/bin/env bash
# capture with an external backend judges with one compile: the accuracy
# failure's miscompile/precision check (the graph recompiled in fp64) is
# deferred and recorded in the bundle (expected.precision_check); check judges
# such a bundle as it was captured (or runs the check with --precision-check
# now) and it still reproduces; minify runs the check once, on its result, and
# records the subkind; `capture --pool N` starts the backend's warm pool and
# minify uses it. Through `--backend reprokit` (the built-in compiler behind
# the protocol), so the fp64 recompile is a real second request.
set -euo pipefail
fail() { echo "FAIL: $*" >&2; exit 1; }
R="${TEST_SRCDIR}/reprokit/tools/reprokit"
EX="${TEST_SRCDIR}/reprokit/examples"
T="${TEST_TMPDIR:-$(mktemp -d)}"
cd "$T"
export REPROKIT_BACKEND_POOL=off

expect_exit() {  # CODE PATTERN CMD...
  local want="$1" pattern="$2"; shift 2
  set +e
  "$@" > out.txt 2>&1
  local got=$?
  set -e
  [[ $got == "$want" ]] || { cat out.txt; fail "exit $got, want $want: $*"; }
  grep -q -- "$pattern" out.txt || { cat out.txt; fail "no '$pattern' in the output of: $*"; }
}
field() {  # FILE PYTHON-EXPRESSION-ON-j
  python3 -c "import json,sys; j=json.load(open(sys.argv[1])); print($2)" "$1"
}

# Deferred by default with a backend: one compile, subkind unknown, recorded.
expect_exit 0 "captured accuracy (accuracy:unknown:relu:f32)" \
  "$R" capture "$EX/mlp.rk" --backend reprokit --opt faults=relu:accuracy -o bug
grep -q "miscompile/precision check is deferred" out.txt || fail "capture says it deferred"
[[ "$(field bug/repro.json 'j["expected"].get("precision_check")')" == deferred ]] ||
  fail "the bundle records the deferred check"
[[ "$(field bug/repro.json 'j["expected"]["accuracy_subkind"]')" == unknown ]] ||
  fail "a deferred capture's subkind is unknown"

# check: what the bundle records still holds, judged as captured or with the check.
expect_exit 1 "expected:  accuracy:unknown:relu:f32 (reproduced)" "$R" check bug
grep -q "verdict:   accuracy (unknown)" out.txt || fail "check judged the deferred bundle as captured"
expect_exit 1 "expected:  accuracy:unknown:relu:f32 (reproduced)" \
  "$R" check bug --precision-check now
grep -q "verdict:   accuracy (miscompile)" out.txt || fail "--precision-check now runs the check"
expect_exit 2 "--precision-check: expected now or deferred, got 'later'" \
  "$R" check bug --precision-check later
# Without the fault the deferred bundle does not reproduce (no subkind hides that).
expect_exit 0 "verdict:   pass" "$R" check bug --opt faults=
grep -q "(NOT reproduced)" out.txt || fail "a pass was taken for the expected failure"

# The old double judgement on request; the built-in compiler's default is now.
expect_exit 0 "captured accuracy (accuracy:miscompile:relu:f32)" \
  "$R" capture "$EX/mlp.rk" --backend reprokit --opt faults=relu:accuracy \
  --precision-check now -o bug.now
grep -q '"precision_check"' bug.now/repro.json && fail "a check run at capture is recorded as deferred"
expect_exit 0 "captured accuracy (accuracy:miscompile:relu:f32)" \
  "$R" capture "$EX/mlp.rk" --opt faults=relu:accuracy -o bug.local
expect_exit 2 "--precision-check: expected now or deferred" \
  "$R" capture "$EX/mlp.rk" --backend reprokit --precision-check maybe -o bad
# bisect takes a deferred bundle's failure, now with its subkind, for the recorded one.
expect_exit 0 "captured accuracy (accuracy:unknown:relu:f32)" \
  "$R" capture "$EX/mlp.rk" --opt faults=relu:accuracy --precision-check deferred -o bug.local.d
expect_exit 0 "the failure persists with every optional pass disabled" "$R" bisect bug.local.d --passes
grep -q "the bundle records" out.txt && fail "bisect refused the deferred bundle's failure"
# A passing graph has nothing to defer.
expect_exit 0 "captured pass" "$R" capture "$EX/mlp.rk" --backend reprokit -o pass
grep -q '"precision_check"' pass/repro.json && fail "a pass records a deferred check"

# minify runs the check once, on its result, and records what it found.
expect_exit 0 '"precision_check_resolved": true' "$R" minify bug -o bug.min --json
grep -q '"classified_at_end": true' out.txt || fail "minify classified at the end"
grep -q "classification_drift" out.txt && fail "resolving the deferred check is not drift"
[[ "$(field bug.min/repro.json 'j["expected"]["signature"]')" == accuracy:miscompile:relu:f32 ]] ||
  fail "the minimized bundle records the subkind"
[[ "$(field bug.min/repro.json 'j["expected"].get("precision_check", "done")')" == done ]] ||
  fail "the minimized bundle's check is no longer deferred"
expect_exit 1 "expected:  accuracy:miscompile:relu:f32 (reproduced)" "$R" check bug.min
# Every candidate checked (--classify-each) resolves it as well, to the same graph.
expect_exit 0 '"precision_check_resolved": true' "$R" minify bug -o bug.each --json --classify-each
cmp bug.min/graph.rk bug.each/graph.rk || fail "--classify-each found another graph"

# --pool N: capture starts the backend's warm pool and judges on it; minify uses it.
expect_exit 2 "--pool needs an external backend" "$R" capture "$EX/mlp.rk" --pool 2 -o p0
expect_exit 2 "REPROKIT_BACKEND_POOL=off" \
  "$R" capture "$EX/mlp.rk" --backend reprokit --pool 2 -o p0
POOL_DIR="$(mktemp -d /tmp/rkpool.XXXXXX)"
export REPROKIT_BACKEND_POOL_DIR="$POOL_DIR"
trap 'REPROKIT_BACKEND_POOL=auto "$R" backend-pool stop reprokit >/dev/null 2>&1 || true; rm -rf "$POOL_DIR"' EXIT
export REPROKIT_BACKEND_POOL=auto
expect_exit 0 "captured accuracy (accuracy:unknown:relu:f32)" \
  "$R" capture "$EX/mlp.rk" --backend reprokit --opt faults=relu:accuracy --pool 3 -o pooled
status() { "$R" backend-pool status reprokit --json > status.json; field status.json "j['$1']"; }
served="$(status served)"
[[ $served == 1 ]] || fail "capture sent $served requests to the pool it started, not 1 compile"
for _ in $(seq 100); do started="$(status started)"; [[ $started == 3 ]] && break; sleep 0.1; done
[[ $started == 3 ]] || fail "the pool did not start its other processes"
expect_exit 0 '"precision_check_resolved": true' "$R" minify pooled -o pooled.min -j 3 --json
after="$(status served)"
(( after > served )) || fail "minify did not use the pool capture started"
# The old double judgement: two compiles (native, then fp64) on the same pool.
expect_exit 0 "captured accuracy (accuracy:miscompile:relu:f32)" "$R" capture "$EX/mlp.rk" \
  --backend reprokit --opt faults=relu:accuracy --pool 3 --precision-check now -o pooled.now
grep -q "already serves" out.txt || fail "capture --pool did not reuse the serving pool"
now_served="$(status served)"
(( now_served == after + 2 )) || fail "--precision-check now sent $((now_served - after)) requests, not 2"
expect_exit 0 "stopping reprokit" "$R" backend-pool stop reprokit
echo "PASS"
