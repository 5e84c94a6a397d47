#!/usr/bin/env bash
# External backends end to end (docs/BACKENDS.md), with no compiler but
# reprokit's own: the built-in compiler through the protocol (`--backend
# reprokit`) gives the built-in verdicts in check, capture, run, minify and
# fuzz --backends; `minify --test` takes an interestingness script; a backend
# that is missing, not executable, of another protocol version, silent,
# chatty or dead at start is a specific error with exit 2 or 125, never a
# hang or a finding.
set -euo pipefail
fail() { echo "FAIL: $*" >&2; exit 1; }
R="${TEST_SRCDIR}/reprokit/tools/reprokit"
EX="${TEST_SRCDIR}/reprokit/examples"
T="${TEST_TMPDIR:-$(mktemp -d)}"
cd "$T"

expect_exit() {  # CODE PATTERN CMD...
  local want="$1" pattern="$2"; shift 2
  set +e
  "$@" > out.txt 2>&1
  local got=$?
  set -e
  [[ $got == "$want" ]] || { cat out.txt; fail "exit $got, want $want: $*"; }
  grep -q -- "$pattern" out.txt || { cat out.txt; fail "no '$pattern' in the output of: $*"; }
}

# The same verdicts through the protocol as in process.
expect_exit 0 "verdict:   pass" "$R" check "$EX/mlp.rk" --backend reprokit
grep -q "^backend:   reprokit" out.txt || fail "check names the backend"
# Named at the planted relu both ways (repro/oracle/failure_site.h).
expect_exit 1 "signature: accuracy:miscompile:relu:f32" \
  "$R" check "$EX/mlp.rk" --backend reprokit --opt faults=relu:accuracy
expect_exit 1 "signature: accuracy:miscompile:relu:f32" \
  "$R" check "$EX/mlp.rk" --opt faults=relu:accuracy
expect_exit 1 "signature: crash:SIGSEGV@compile" \
  "$R" check "$EX/mlp.rk" --backend reprokit --opt faults=relu:crash
expect_exit 1 "signature: timeout@compile" \
  "$R" check "$EX/mlp.rk" --backend reprokit --opt faults=relu:hang --timeout 1
expect_exit 1 "signature: compile_error" \
  "$R" check "$EX/mlp.rk" --backend reprokit --opt faults=relu:compile_error

# Options the backend did not declare are refused, naming the declared ones.
expect_exit 2 "has no option 'bogus' (it declares: opt_level" \
  "$R" check "$EX/mlp.rk" --backend reprokit --opt bogus=1

# capture -> run -> minify -> check of the minimized bundle, all through the protocol.
expect_exit 0 "captured accuracy" "$R" capture "$EX/mlp.rk" --backend reprokit \
  --opt faults=relu:accuracy -o bug
grep -q '"backend": "reprokit"' bug/repro.json || fail "bundle records the backend option"
grep -q '"name": "reprokit"' bug/repro.json || fail "bundle records the backend's hello"
expect_exit 0 "out0 %y" "$R" run bug
expect_exit 0 "minified: .* -> 1 nodes" "$R" minify bug -o bug.min -j 2
grep -q "relu(" bug.min/graph.rk || fail "minimized graph keeps the relu"
grep -q '"name": "reprokit"' bug.min/repro.json || fail "the minimized bundle keeps the backend"
expect_exit 1 "(reproduced)" "$R" check bug.min
# Through a backend the schedule is the costly oracles' one (keep_cone first),
# and the miscompile/precision subkind is checked once, on the
# result; --classify-each checks it on every failing candidate.
expect_exit 0 '"classified_at_end": true' "$R" minify bug -o bug.cone --json
grep -q '"name": "keep_cone"' out.txt || fail "keep_cone runs for an external backend"
grep -q '"signature": "accuracy:miscompile:relu:f32"' out.txt || fail "the result is classified"
expect_exit 0 '"classified_at_end": false' "$R" minify bug -o bug.each --json --classify-each
grep -q '"signature": "accuracy:miscompile:relu:f32"' out.txt || fail "--classify-each result"
cmp bug.cone/graph.rk bug.each/graph.rk || fail "deferring the subkind changes the result"
# The built-in compiler starts with truncate_tail and classifies every candidate.
"$R" capture "$EX/mlp.rk" --opt faults=relu:accuracy -o bug.local > /dev/null || [[ $? == 1 ]]
expect_exit 0 '"classified_at_end": false' "$R" minify bug.local -o bug.local.min --json
grep -q '"name": "truncate_tail"' out.txt || fail "truncate_tail runs for the built-in compiler"
grep -q '"name": "keep_cone"' out.txt && fail "keep_cone runs for the built-in compiler"
# --backend builtin judges the same bundle with the built-in compiler, which
# was never given the backend's fault: it does not reproduce there.
expect_exit 1 "does not reproduce" \
  "$R" minify bug -o bug.builtin --backend builtin

# An interestingness script (exit 0 = still interesting), in parallel.
cat > still_has_matmul.sh <<'SH'
#!/bin/sh
grep -q "matmul(" "$1/graph.rk"
SH
chmod +x still_has_matmul.sh
# A temporary folder of this test's own: another run's scratch folders in
# /tmp must not count.
mkdir -p scratch_tmp
TMPDIR="$PWD/scratch_tmp" expect_exit 0 "minified: .* -> 1 nodes" \
  "$R" minify bug -o bug.script --test ./still_has_matmul.sh -j 2
grep -q "matmul(" bug.script/graph.rk || fail "the script's property holds in the result"
[[ -z "$(ls -d scratch_tmp/reprokit-test-* 2>/dev/null)" ]] || fail "scratch candidates left behind"
expect_exit 2 "interestingness test: cannot run" "$R" minify bug -o bug.none --test ./missing.sh
cat > never.sh <<'SH'
#!/bin/sh
exit 1
SH
chmod +x never.sh
expect_exit 1 "does not reproduce" "$R" minify bug -o bug.never --test ./never.sh

# Differential fuzzing: the planted fault is found in the protocol backend only.
expect_exit 1 "NEW   accuracy_relu" "$R" fuzz --backends cpu,reprokit \
  --backend-opt faults=relu:accuracy --iterations 120 --no-emit --quiet -o campaign
grep -q "| cpu:pass | 120 |" campaign/summary.md || { cat campaign/summary.md; fail "cpu all pass"; }
grep -q "reprokit:accuracy:miscompile:relu" campaign/summary.md || fail "finding signed per backend"

# Broken backends: specific errors, exit 2 (cannot be used as named) or 125
# (cannot test with it), never a hang.
expect_exit 2 "backend 'nosuch' is not installed" "$R" check "$EX/mlp.rk" --backend nosuch
printf '#!/bin/sh\nexit 0\n' > not_executable; chmod -x not_executable
expect_exit 2 "not an executable file" "$R" check "$EX/mlp.rk" --backend ./not_executable
printf '#!/bin/sh\necho "model file missing" >&2\nexit 3\n' > dies; chmod +x dies
expect_exit 125 "ended before its hello (exited with 3); its stderr ends: model file missing" \
  "$R" check "$EX/mlp.rk" --backend ./dies
printf '#!/bin/sh\necho "hello there"\nsleep 30\n' > garbage; chmod +x garbage
expect_exit 125 "does not speak the protocol: not a protocol frame" \
  "$R" check "$EX/mlp.rk" --backend ./garbage
printf '#!/bin/sh\nsleep 30\n' > silent; chmod +x silent
REPROKIT_BACKEND_START_TIMEOUT=1 expect_exit 125 "sent no hello within 1s" \
  "$R" check "$EX/mlp.rk" --backend ./silent
# A hello of protocol version 99: frame = RKBP, header length, payload length 0, JSON.
cat > version99 <<'SH'
#!/usr/bin/python3
import json, struct, sys, time
h = json.dumps({"type": "hello", "protocol": 99, "name": "future", "version": "9"}).encode()
sys.stdout.buffer.write(b"RKBP" + struct.pack("<IQ", len(h), 0) + h)
sys.stdout.flush()
time.sleep(30)
SH
chmod +x version99
expect_exit 2 "speaks protocol version 99; this reprokit speaks version 1" \
  "$R" check "$EX/mlp.rk" --backend ./version99
# A warm pool (docs/BACKENDS.md, "A warm pool"): commands send their requests
# to it, with the same verdicts, and it keeps the isolation (a crash is a
# verdict, the pool goes on).
POOL_DIR="$(mktemp -d /tmp/rkpool.XXXXXX)"
export REPROKIT_BACKEND_POOL_DIR="$POOL_DIR"
trap 'REPROKIT_BACKEND_POOL=auto "$R" backend-pool stop reprokit >/dev/null 2>&1 || true; rm -rf "$POOL_DIR"' EXIT
expect_exit 2 "unknown action 'begin'" "$R" backend-pool begin reprokit
expect_exit 2 "no pool of 'reprokit' is running" "$R" backend-pool status reprokit
expect_exit 0 "backend pool of 'reprokit' with 2 processes" \
  "$R" backend-pool start reprokit -j 2 --idle 120
expect_exit 0 "already serves" "$R" backend-pool start reprokit -j 2
served() { "$R" backend-pool status reprokit --json | python3 -c 'import json,sys; print(json.load(sys.stdin)["served"])'; }
[[ "$(served)" == 0 ]] || fail "a new pool has served requests"
REPROKIT_BACKEND_POOL=auto expect_exit 1 "signature: accuracy:miscompile:relu:f32" \
  "$R" check "$EX/mlp.rk" --backend reprokit --opt faults=relu:accuracy
after_check="$(served)"
(( after_check >= 1 )) || fail "check did not use the pool (served $after_check)"
REPROKIT_BACKEND_POOL=auto expect_exit 1 "signature: crash:SIGSEGV@compile" \
  "$R" check "$EX/mlp.rk" --backend reprokit --opt faults=relu:crash
REPROKIT_BACKEND_POOL=auto expect_exit 0 "verdict:   pass" "$R" check "$EX/mlp.rk" --backend reprokit
(( $(served) > after_check + 1 )) || fail "the pool did not serve the later checks"
# REPROKIT_BACKEND_POOL=off (the test default) leaves the pool alone.
before_off="$(served)"
expect_exit 0 "verdict:   pass" "$R" check "$EX/mlp.rk" --backend reprokit
[[ "$(served)" == "$before_off" ]] || fail "REPROKIT_BACKEND_POOL=off still used the pool"
expect_exit 0 "stopping reprokit" "$R" backend-pool stop reprokit
for _ in $(seq 50); do ls "$POOL_DIR"/*.sock >/dev/null 2>&1 || break; sleep 0.1; done
ls "$POOL_DIR"/*.sock >/dev/null 2>&1 && fail "the stopped pool left its socket"
expect_exit 2 "no pool of 'reprokit' is running" "$R" backend-pool status reprokit
# --warm: ready means every process started (and warmed up); a bad device is refused.
expect_exit 2 "--warm: unknown device 'gpu'" "$R" backend-pool start reprokit -j 2 --warm gpu
expect_exit 0 "backend pool of 'reprokit' with 3 processes" \
  "$R" backend-pool start reprokit -j 3 --idle 120 --warm cpu
started="$("$R" backend-pool status reprokit --json | python3 -c 'import json,sys; print(json.load(sys.stdin)["started"])')"
[[ "$started" == 3 ]] || fail "a warm pool was ready with $started of 3 processes started"
[[ "$(served)" == 0 ]] || fail "warm-ups were counted as requests served"
expect_exit 0 "stopping reprokit" "$R" backend-pool stop reprokit
echo "PASS"
