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
exit $((fails > 0))
