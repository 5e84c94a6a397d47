#!/usr/bin/env bash
# End-to-end checks of `reprokit check --repeat N [--warmup K]`: the compiled
# program's steady-state run time (tools/steady_state.h), in the human output
# and in --json, and the refusals of bad counts.
set -u
bin="$TEST_SRCDIR/reprokit/tools/reprokit"
examples="$TEST_SRCDIR/reprokit/examples"
out="$TEST_TMPDIR/out" err="$TEST_TMPDIR/err"
export REPROKIT_KERNEL_CACHE="$TEST_TMPDIR/kernels"
fails=0
fail() { echo "FAIL: $*"; cat "$out" "$err"; fails=$((fails+1)); }
expect() {  # expect CODE DESCRIPTION -- command...
  local want=$1 what=$2; shift 3
  "$@" >"$out" 2>"$err"; local got=$?
  if [[ $got != "$want" ]]; then fail "$what: exit $got, want $want"; else echo "ok: $what"; fi
}

expect 0 "--repeat 5 --json" -- "$bin" check "$examples/mlp.rk" --repeat 5 --json
python3 - "$out" <<'PY' || fail "steady_state JSON is wrong"
import json, sys
doc = json.load(open(sys.argv[1]))
assert doc["kind"] == "pass", doc["kind"]
s = doc["steady_state"]
assert s["device"] == "cpu", s
assert s["runs"] == 5 and s["warmup"] == 3, s
runs = s["run_ms"]
assert len(runs) == 5, runs
assert all(0 < r < 10000 for r in runs), runs
assert s["min_ms"] == min(runs) and s["max_ms"] == max(runs), s
assert s["median_ms"] == sorted(runs)[2], s
assert abs(s["mean_ms"] - sum(runs) / 5) < 1e-5, s
assert s["min_ms"] <= s["median_ms"] <= s["mean_ms"] * 5, s
assert s["compile_ms"] > 0 and s["kernels"] >= 1, s
assert "back_to_back_mean_ms" not in s, s
PY

expect 0 "--repeat 4 --warmup 0, human output" -- "$bin" check "$examples/softmax.rk" --repeat 4 --warmup 0
grep -q "^steady state (cpu, 4 runs after 0 warm-up; " "$out" || fail "no steady-state header"
grep -Eq "^  min [0-9.e-]+ ms, median [0-9.e-]+ ms, mean [0-9.e-]+ ms, max [0-9.e-]+ ms$" "$out" ||
  fail "no min/median/mean line"
grep -Eq "^  compile [0-9.]+ ms in this process \([0-9]+ kernels" "$out" || fail "no compile line"

# A graph with `grad` inputs is timed as its joint graph: more kernels than the forward graph.
expect 0 "grad graph, forward only" -- "$bin" check "$examples/mlp_train.rk" --grad none --repeat 2 --json
forward_kernels=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["steady_state"]["kernels"])' "$out")
expect 0 "grad graph, joint" -- "$bin" check "$examples/mlp_train.rk" --repeat 2 --json
joint_kernels=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["steady_state"]["kernels"])' "$out")
[[ "$joint_kernels" -gt "$forward_kernels" ]] ||
  fail "the joint graph timed with $joint_kernels kernels, the forward one with $forward_kernels"

expect 0 "no --repeat, no steady state" -- "$bin" check "$examples/mlp.rk" --json
grep -q steady_state "$out" && fail "steady_state without --repeat"

expect 2 "--repeat 0" -- "$bin" check "$examples/mlp.rk" --repeat 0
grep -q "^reprokit: check: --repeat must be a number of timed runs from 1 to 100000, got 0" "$err" ||
  fail "unclear --repeat 0 error"
expect 2 "--repeat x" -- "$bin" check "$examples/mlp.rk" --repeat x
grep -q "^reprokit: check: --repeat: expected an integer, got 'x'" "$err" || fail "unclear --repeat x error"
expect 2 "--repeat -3" -- "$bin" check "$examples/mlp.rk" --repeat=-3
grep -q "got -3" "$err" || fail "unclear negative --repeat error"
expect 2 "--warmup -1" -- "$bin" check "$examples/mlp.rk" --repeat 2 --warmup -1
grep -q "^reprokit: check: --warmup must be a number of untimed runs" "$err" || fail "unclear --warmup error"
expect 2 "--warmup without --repeat" -- "$bin" check "$examples/mlp.rk" --warmup 2
grep -q "^reprokit: check: --warmup needs --repeat N" "$err" || fail "unclear lone --warmup error"
expect 2 "--repeat with an external backend" -- \
  "$bin" check "$examples/mlp.rk" --repeat 2 --backend "$TEST_TMPDIR/no-such-backend"
grep -q "^reprokit: check: --repeat times the built-in compiler" "$err" || fail "external backend not refused"

# A compile error is a verdict, and then there is nothing to time.
expect 1 "compile error: not timed" -- \
  "$bin" check "$examples/mlp.rk" --repeat 2 --opt faults=matmul:compile_error --json
grep -q '"error": "not timed: the verdict is compile_error"' "$out" || fail "untimed verdict not said"
exit $((fails > 0))
