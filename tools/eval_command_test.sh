#!/usr/bin/env bash
# End-to-end checks of `reprokit eval` on the example graphs.
set -u
bin="$TEST_SRCDIR/reprokit/tools/reprokit"
examples="$TEST_SRCDIR/reprokit/examples"
out="$TEST_TMPDIR/out" err="$TEST_TMPDIR/err"
fails=0
fail() { echo "FAIL: $*"; cat "$out" "$err"; fails=$((fails+1)); }
expect() {  # expect CODE DESCRIPTION -- command...
  local want=$1 what=$2; shift 3
  "$@" >"$out" 2>"$err"; local got=$?
  if [[ $got != "$want" ]]; then fail "$what: exit $got, want $want"; else echo "ok: $what"; fi
}
expect 0 "eval mlp" -- "$bin" eval "$examples/mlp.rk"
grep -q "out0 %y: f32\[8,16\] min=" "$out" || fail "no output summary"
grep -q "in0 %x: f32\[8,64\]" "$out" || fail "no input summary"
cp "$out" "$TEST_TMPDIR/seed0"
expect 0 "eval mlp again" -- "$bin" eval "$examples/mlp.rk" --seed=0
cmp -s "$out" "$TEST_TMPDIR/seed0" || fail "same seed, different output"
expect 0 "eval mlp seed 7" -- "$bin" eval "$examples/mlp.rk" --seed 7
cmp -s "$out" "$TEST_TMPDIR/seed0" && fail "different seeds, same output"
expect 0 "eval --fp64" -- "$bin" eval --fp64 "$examples/attention.rk"
grep -q "fp64 reference" "$out" || fail "fp64 mode not reported"
grep -q "out0 %out: f64\[2,16,64\]" "$out" || fail "fp64 output is not f64"
expect 0 "eval --json" -- "$bin" eval --json "$examples/softmax.rk"
grep -q '"mode": "native"' "$out" || fail "json lacks the mode"
grep -q '"type": "f32\[8,128\]"' "$out" || fail "json lacks the type"
grep -q '"nan": 0' "$out" || fail "json lacks NaN counts"
expect 0 "eval --help" -- "$bin" eval --help
expect 2 "no graph" -- "$bin" eval
grep -q "^reprokit: eval: expected exactly one GRAPH argument" "$err" || fail "unclear usage error"
expect 2 "missing file" -- "$bin" eval "$TEST_TMPDIR/nope.rk"
grep -q "^reprokit: eval: $TEST_TMPDIR/nope.rk: " "$err" || fail "missing file not named"
printf 'graph @g(%%x: f32[2]) {\n  %%y = expp(%%x) : f32[2]\n  return %%y\n}\n' >"$TEST_TMPDIR/bad.rk"
expect 2 "bad graph" -- "$bin" eval "$TEST_TMPDIR/bad.rk"
grep -q "^reprokit: eval: $TEST_TMPDIR/bad.rk:2:8: unknown op" "$err" || fail "parse error lacks file:line:col"
expect 2 "negative seed" -- "$bin" eval "$examples/mlp.rk" --seed=-1
exit $((fails > 0))
