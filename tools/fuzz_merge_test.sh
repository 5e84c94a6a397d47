#!/usr/bin/env bash
# A campaign split over 4 processes that share one store (a real nginx
# serving the Bazel HTTP cache protocol on 127.0.0.1, each process with its
# own local cache, as on 4 machines), with a planted fault, merged by
# `reprokit fuzz merge` into one report: one signature, one emitted target.
# Then the merge's bad inputs: a record of another seed, a shard given twice,
# a record that is not one, an unreachable store.
set -euo pipefail
fail() { echo "FAIL: $*" >&2; exit 1; }

R="$TEST_SRCDIR/reprokit/tools/reprokit"
NGINX="$TEST_SRCDIR/reprokit/repro/store/testdata/nginx_server.sh"
# Outside the test's execroot: a merge emits into a fresh workspace of its own.
tmp=$(mktemp -d "${TMPDIR:-/tmp}/fuzz_merge_test.XXXXXX")
port=$("$NGINX" start "$tmp/nginx")
trap '"$NGINX" stop "$tmp/nginx"; rm -rf "$tmp"' EXIT
url="http://127.0.0.1:$port/campaign"

shard() {  # shard I SEED OUT
  REPROKIT_STORE_CACHE="$tmp/cache$1" "$R" fuzz --iterations 4 --seed "$2" --shard "$1/4" \
    --fault exp:compile_error --minimize-time 5 --no-gpu --no-emit --quiet \
    --store "$url" --out "$3" >"$3.log" 2>&1
}
pids=()
for i in 0 1 2 3; do
  shard "$i" 5 "$tmp/s$i" &
  pids+=($!)
done
for i in 0 1 2 3; do
  set +e
  wait "${pids[$i]}"
  code=$?
  set -e
  [[ $code == 0 || $code == 1 ]] || { cat "$tmp/s$i.log"; fail "shard $i exited $code"; }
  [[ -f "$tmp/s$i/campaign-record.json" ]] || fail "shard $i wrote no campaign record"
done
record2=$(grep -o 'sha256:[0-9a-f]*' "$tmp/s2.log" | head -n 1)
[[ -n "$record2" ]] || fail "shard 2 did not print its record's digest"

# Merge from a machine that has none of the bundles: records as a directory,
# a file and a digest in the store.
set +e
REPROKIT_STORE_CACHE="$tmp/merge_cache" "$R" fuzz merge "$tmp/s0" \
  "$tmp/s1/campaign-record.json" "$record2" "$tmp/s3" --store "$url" -o "$tmp/merged" \
  >"$tmp/merge.out" 2>&1
code=$?
set -e
cat "$tmp/merge.out"
[[ $code == 1 ]] || fail "merge exited $code, want 1 (a new finding)"
python3 - "$tmp/merged" <<'PY' || fail "merged report"
import json, os, sys
out = sys.argv[1]
s = json.load(open(os.path.join(out, "summary.json")))
findings = s["findings"]
assert len(findings) == 1, f"{len(findings)} findings: {[f['signature'] for f in findings]}"
f = findings[0]
assert "exp:compile_error" in f["signature"], f["signature"]
assert f["hits"] >= 2, f["hits"]  # found by more than one shard
assert s["stats"]["graphs"] == 16, s["stats"]["graphs"]
packages = [d for d in os.listdir(os.path.join(out, "repros"))]
assert len(packages) == 1, packages
assert os.path.isfile(os.path.join(out, "repros", packages[0], "BUILD.bazel")), packages
assert os.path.isfile(os.path.join(out, "findings", f["name"], "min", "repro.json"))
junit = open(os.path.join(out, "junit.xml")).read()
assert junit.count("<failure") == 1, junit
assert os.path.isfile(os.path.join(out, "summary.md"))
PY

expect() {  # expect CODE PATTERN args...
  local want=$1 pattern=$2
  shift 2
  set +e
  "$R" fuzz merge "$@" >"$tmp/bad.out" 2>"$tmp/bad.err"
  local got=$?
  set -e
  [[ $got == "$want" ]] || { cat "$tmp/bad.err"; fail "fuzz merge $*: exit $got, want $want"; }
  grep -q -- "$pattern" "$tmp/bad.err" || { cat "$tmp/bad.err"; fail "fuzz merge $*: no '$pattern'"; }
}
REPROKIT_STORE_CACHE="$tmp/cache9" "$R" fuzz --iterations 1 --seed 6 --shard 1/4 --no-gpu \
  --no-emit --quiet --store "$url" --out "$tmp/other" >/dev/null 2>&1 || true
expect 2 "different campaign: seed 6" "$tmp/s0" "$tmp/other" --store "$url" -o "$tmp/m1"
expect 2 "given twice" "$tmp/s0" "$tmp/s0" --store "$url" -o "$tmp/m2"
echo '{"format": "something-else"}' >"$tmp/junk.json"
expect 2 "not a campaign record" "$tmp/junk.json" --store "$url" -o "$tmp/m3"
expect 2 "bad store URL" "$tmp/s0" --store "http://127.0.0.1:port/x" -o "$tmp/m4"
"$NGINX" stop "$tmp/nginx"
REPROKIT_STORE_CACHE="$tmp/cache_gone" expect 125 "attempts" "$tmp/s0" --store "$url" -o "$tmp/m5"
[[ ! -e "$tmp/m5/summary.json" ]] || fail "a merge that could not fetch wrote a report"
echo PASS
