#!/usr/bin/env bash
# `reprokit report` on bad input: specific errors, exit 2 (bad input) and
# nothing written or replaced; a report replaces an earlier report.
set -u
bin="$TEST_SRCDIR/reprokit/tools/reprokit"
cd "$TEST_TMPDIR" || exit 1
out="$TEST_TMPDIR/out" err="$TEST_TMPDIR/err"
fails=0
fail() { echo "FAIL: $*"; cat "$out" "$err"; fails=$((fails+1)); }
expect() {  # expect CODE MESSAGE DESCRIPTION -- command...
  local want=$1 message=$2 what=$3; shift 4
  "$@" >"$out" 2>"$err"; local got=$?
  if [[ $got != "$want" ]]; then fail "$what: exit $got, want $want"; return; fi
  if [[ -n "$message" ]] && ! grep -qF -- "$message" "$err"; then fail "$what: stderr lacks '$message'"; return; fi
  echo "ok: $what"
}

mkdir -p empty
expect 2 "reprokit: report: give -o report.html" "no -o" -- "$bin" report empty
expect 2 "reprokit: report: expects one INPUT directory" "no input" -- "$bin" report -o r.html
expect 2 "reprokit: report: missing: no such directory" "missing input" -- "$bin" report missing -o r.html
expect 2 "not a bundle (repro.json), a dump directory" "not a report input" -- "$bin" report empty -o r.html
[[ ! -e r.html ]] || fail "a failed report wrote r.html"

mkdir -p dump/passes
cat > dump/passes/00_input.rk <<'GRAPH'
graph @g(%x: f32[4]) {
  %r = relu(%x) : f32[4]
  return %r
}
GRAPH
echo "keep me" > precious.txt
expect 2 "precious.txt: exists and is not an HTML report (use --force" "refuses to replace a file" \
  -- "$bin" report dump -o precious.txt
grep -q "keep me" precious.txt || fail "report replaced precious.txt"
expect 0 "" "dump report" -- "$bin" report dump -o r.html
grep -q "wrote r.html (dump report" "$out" || fail "no summary line"
expect 0 "" "replaces an earlier report" -- "$bin" report dump -o r.html
expect 0 "" "--force replaces any file" -- "$bin" report dump -o precious.txt --force
grep -q "<!DOCTYPE html>" precious.txt || fail "--force did not write the report"

if [[ $fails != 0 ]]; then
  echo "$fails failure(s)"
  exit 1
fi
echo "PASS"
