#!/usr/bin/env bash
# End-to-end checks of `reprokit store`: stats, verify (exit 1 on corruption)
# and gc (dry run by default, --yes deletes unreferenced objects).
set -u
bin="$TEST_SRCDIR/reprokit/tools/reprokit"
store="$TEST_TMPDIR/store"
fails=0
fail() { echo "FAIL: $*"; cat "$TEST_TMPDIR/out" "$TEST_TMPDIR/err"; fails=$((fails+1)); }
run() {  # run WANT_EXIT args...
  local want=$1; shift
  "$bin" store "$@" --root "$store" >"$TEST_TMPDIR/out" 2>"$TEST_TMPDIR/err"; local got=$?
  [[ $got == "$want" ]] || fail "store $*: exit $got, want $want"
}
# An empty (not yet created) store: stats says so, verify and gc refuse it
# (a mistyped --root must not read as "all intact").
run 0 stats --json
grep -q '"objects": 0' "$TEST_TMPDIR/out" || fail "empty store stats"
run 2 verify
grep -q "does not exist" "$TEST_TMPDIR/err" || fail "verify of a missing root"
run 2 gc --bundles "$TEST_TMPDIR"
grep -q "does not exist" "$TEST_TMPDIR/err" || fail "gc of a missing root"
mkdir -p "$store"
run 0 verify
run 2 gc
grep -q "needs at least one --bundles" "$TEST_TMPDIR/err" || fail "gc without bundles"
run 2 frobnicate
run 2 gc --bundles "$TEST_TMPDIR/no_such_dir"

# A corrupt object (right name, wrong bytes) makes verify exit 1.
hex=$(printf 'reprokit' | sha256sum | cut -c1-64)
mkdir -p "$store/cas/${hex:0:2}"
printf 'not an object' > "$store/cas/${hex:0:2}/$hex"
run 0 stats
grep -q "^objects *1" "$TEST_TMPDIR/out" || fail "stats counts the object"
run 1 verify --json
grep -q "\"path\": \"$store/cas/${hex:0:2}/$hex\"" "$TEST_TMPDIR/out" || fail "verify names the path"

# gc: referenced from a bundle's repro.json -> kept; unreferenced -> removed with --yes.
mkdir -p "$TEST_TMPDIR/bundles/bug"
echo "{\"sha256\": \"$hex\"}" > "$TEST_TMPDIR/bundles/bug/repro.json"
run 0 gc --bundles "$TEST_TMPDIR/bundles" --yes
[[ -f "$store/cas/${hex:0:2}/$hex" ]] || fail "gc removed a referenced object"
: > "$TEST_TMPDIR/bundles/bug/repro.json"
run 0 gc --bundles "$TEST_TMPDIR/bundles" --json
grep -q "\"dry_run\": true" "$TEST_TMPDIR/out" || fail "gc is a dry run by default"
[[ -f "$store/cas/${hex:0:2}/$hex" ]] || fail "dry run deleted"
run 0 gc --bundles "$TEST_TMPDIR/bundles" --yes
[[ ! -e "$store/cas/${hex:0:2}/$hex" ]] || fail "gc --yes kept an unreferenced object"
exit $((fails > 0))
