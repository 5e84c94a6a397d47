#!/usr/bin/env bash
# End-to-end checks of the reprokit binary's top-level behaviour.
set -u
bin="$TEST_SRCDIR/reprokit/tools/reprokit"
fails=0
expect() {  # expect CODE DESCRIPTION -- command...
  local want=$1 what=$2; shift 3
  "$@" >"$TEST_TMPDIR/out" 2>"$TEST_TMPDIR/err"; local got=$?
  if [[ $got != "$want" ]]; then
    echo "FAIL: $what: exit $got, want $want"; cat "$TEST_TMPDIR/out" "$TEST_TMPDIR/err"; fails=$((fails+1))
  else
    echo "ok: $what"
  fi
}
expect 0 "--help" -- "$bin" --help
grep -q "version" "$TEST_TMPDIR/out" || { echo "FAIL: --help lists no subcommands"; fails=$((fails+1)); }
expect 2 "no arguments" -- "$bin"
expect 2 "unknown subcommand" -- "$bin" frobnicate
grep -q "unknown subcommand 'frobnicate'" "$TEST_TMPDIR/err" || { echo "FAIL: unclear error"; fails=$((fails+1)); }
expect 0 "version" -- "$bin" version
grep -q "^LLVM 19" "$TEST_TMPDIR/out" || { echo "FAIL: version lacks LLVM"; fails=$((fails+1)); }
expect 0 "version --help" -- "$bin" version --help
expect 2 "unknown flag" -- "$bin" version --bogus
grep -q "reprokit: version: unknown flag '--bogus'" "$TEST_TMPDIR/err" || { echo "FAIL: bad flag message"; cat "$TEST_TMPDIR/err"; fails=$((fails+1)); }
# show: pretty print, stats, dot, svg, errors.
graph="$TEST_SRCDIR/reprokit/tools/testdata/small.rk"
expect 0 "show" -- "$bin" show "$graph"
grep -q "^graph @small(%x: f32\[2,3\], %w: f32\[3\]) {" "$TEST_TMPDIR/out" || { echo "FAIL: show output"; fails=$((fails+1)); }
cp "$TEST_TMPDIR/out" "$TEST_TMPDIR/printed.rk"
expect 0 "show is idempotent" -- "$bin" show "$TEST_TMPDIR/printed.rk"
cmp -s "$TEST_TMPDIR/out" "$TEST_TMPDIR/printed.rk" || { echo "FAIL: show of show differs"; fails=$((fails+1)); }
expect 0 "show --stats" -- "$bin" show --stats "$graph"
grep -q "^canonical hash: [0-9a-f]\{64\}$" "$TEST_TMPDIR/out" && grep -q "^  exp 1$" "$TEST_TMPDIR/out" \
  && grep -q "^  %p: f32\[2,3\]$" "$TEST_TMPDIR/out" || { echo "FAIL: stats"; cat "$TEST_TMPDIR/out"; fails=$((fails+1)); }
expect 0 "show --dot" -- "$bin" show --dot "$graph"
grep -q "^digraph \"small\" {" "$TEST_TMPDIR/out" || { echo "FAIL: dot"; fails=$((fails+1)); }
if command -v dot >/dev/null; then
  expect 0 "show --svg" -- "$bin" show --svg "$TEST_TMPDIR/g.svg" "$graph"
  grep -q "<svg" "$TEST_TMPDIR/g.svg" || { echo "FAIL: svg"; fails=$((fails+1)); }
else
  expect 1 "show --svg without dot" -- "$bin" show --svg "$TEST_TMPDIR/g.svg" "$graph"
  grep -q "reprokit: show: --svg: graphviz 'dot' was not found" "$TEST_TMPDIR/err" || { echo "FAIL: no-dot message"; fails=$((fails+1)); }
fi
printf 'graph @g(%%x: f32[2]) {\n  %%e = expp(%%x) : f32[2]\n  return %%e\n}\n' >"$TEST_TMPDIR/bad.rk"
expect 2 "show of a bad graph" -- "$bin" show "$TEST_TMPDIR/bad.rk"
grep -q "reprokit: show: .*bad.rk:2:8: unknown op 'expp'" "$TEST_TMPDIR/err" || { echo "FAIL: parse error message"; cat "$TEST_TMPDIR/err"; fails=$((fails+1)); }
expect 2 "show of a missing file" -- "$bin" show "$TEST_TMPDIR/nope.rk"
expect 2 "show without a graph" -- "$bin" show
exit $((fails > 0))
