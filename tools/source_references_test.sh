#!/usr/bin/env bash
# Comments and docs cite only what is in the repository
# (tools/source_references.py says what counts). First the checker itself:
# its self-test (one planted offence of each kind must be reported, a clean
# tree must pass) and a run on a tiny tree with one dead "Tested by" line,
# which must exit 1 naming it. Then the source tree, found through README.md
# in the runfiles: with --spawn_strategy=local (.bazelrc) that runfile links
# into the workspace.
set -uo pipefail
script="tools/source_references.py"
[[ -f "$script" ]] || script="$TEST_SRCDIR/$TEST_WORKSPACE/tools/source_references.py"
fail() { echo "FAIL: $*"; exit 1; }

python3 "$script" --self-test || fail "the checker's self-test"

tree="$(mktemp -d "${TEST_TMPDIR:-/tmp}/refs.XXXXXX")"
dir=repro/store  # (a variable, so that the check below does not see the path)
mkdir -p "$tree/$dir"
printf '// Planted.\n//\n// Tested by %s.\n' "$dir/missing_test.cc" > "$tree/$dir/x.h"
out="$(python3 "$script" "$tree")"
code=$?
echo "$out"
[[ $code == 1 ]] || fail "planted tree: exit $code, expected 1"
grep -q "^$dir/x.h:3: .*$dir/missing_test.cc" <<<"$out" ||
  fail "planted tree: the dead reference is not named"
rm -rf "$tree"

python3 "$script"
