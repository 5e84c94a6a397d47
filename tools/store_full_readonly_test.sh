#!/usr/bin/env bash
# A full disk and a read-only store, as any user (docs/RELIABILITY.md):
# - full: RLIMIT_FSIZE (`ulimit -f`; reprokit ignores SIGXFSZ, so a write past
#   it fails with EFBIG) stands in for ENOSPC, which a small file system would
#   give but cannot be mounted without root;
# - read-only: the store's directories (and a bundle's parent) chmod 0555.
# For each of `capture -o`, `store push` into a shared store and `store gc`:
# a clear error naming the cause, exit 2 or 125 (never 1 = "reproduces", never
# a signal), no temporary left, and what the store held before is intact
# (`store verify` clean, the same objects, an earlier bundle still replays).
# Root ignores permission bits, so as root the read-only half is skipped with
# a message (the full-disk half runs as any user).
#
#   bazel test //tools:store_full_readonly_test
#   tools/store_full_readonly_test.sh [path/to/reprokit]   (outside Bazel)
set -u
bin="${1:-${TEST_SRCDIR:-.}/reprokit/tools/reprokit}"
[[ -x "$bin" ]] || bin="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)/bazel-bin/tools/reprokit"
t="$(mktemp -d "${TEST_TMPDIR:-${TMPDIR:-/tmp}}/store-full-XXXXXX")"
trap 'chmod -R u+w "$t" 2>/dev/null; rm -rf "$t"' EXIT
export TMPDIR="$t/tmp"; mkdir -p "$TMPDIR"
fails=0
fail() { echo "FAIL: $*"; sed 's/^/  stderr: /' "$t/err" 2>/dev/null | head -3; fails=$((fails + 1)); }
# EXIT_CODE WHAT: an error that is not "reproduces" and not a signal.
want_error() {
  [[ $1 == 2 || $1 == 125 ]] || fail "$2: exit $1 (want 2 or 125)"
  grep -q '^reprokit: ' "$t/err" || fail "$2: no 'reprokit: <subcommand>: ...' error on stderr"
}
no_temps() {  # DIR WHAT: no .tmp.* anywhere below DIR
  local left; left="$(find "$1" -name '.tmp.*' 2>/dev/null | head -1)"
  [[ -z "$left" ]] || fail "$2 left $left"
}
objects() { (cd "$1" && find cas -type f ! -name '.tmp.*' | sort | xargs -r sha256sum); }

printf 'graph @g(%%x: f32[8192]) {\n  %%r = relu(%%x) : f32[8192]\n  return %%r\n}\n' > "$t/g.rk"
printf 'graph @h(%%x: f32[16]) {\n  %%r = exp(%%x) : f32[16]\n  return %%r\n}\n' > "$t/h.rk"
head -c 32768 /dev/urandom > "$t/x.bin"
head -c 32768 /dev/urandom > "$t/x2.bin"
head -c 64 /dev/urandom > "$t/y.bin"
# What is stored before: a bundle with its blobs, pushed into a shared store.
"$bin" capture "$t/h.rk" --inputs "$t/y.bin" -o "$t/old" >/dev/null 2>"$t/err" || fail "capture"
mkdir -p "$t/store"
"$bin" store push "$t/old" --store "$t/store" >/dev/null 2>"$t/err" || fail "store push"
"$bin" capture "$t/g.rk" --inputs "$t/x.bin" -o "$t/new" >/dev/null 2>"$t/err" || fail "capture of the new bundle"
before="$(objects "$t/store")"
[[ -n "$before" ]] || fail "the shared store holds nothing after a push"

intact() {  # WHAT: the store holds what it held before and still serves the old bundle
  "$bin" store verify --root "$t/store" >/dev/null 2>"$t/err" || fail "$1: store verify"
  [[ "$(objects "$t/store")" == "$before" ]] || fail "$1: the store's objects changed"
  no_temps "$t/store" "$1"
  rm -rf "$t/thin"; cp -r "$t/old" "$t/thin"; rm -rf "$t/thin/blobs"
  "$bin" run "$t/thin" --store "$t/store" >/dev/null 2>"$t/err" || fail "$1: the earlier bundle no longer replays from the store"
}

# --- A full disk (RLIMIT_FSIZE -> EFBIG) ---
(ulimit -f 8; "$bin" capture "$t/g.rk" --inputs "$t/x2.bin" -o "$t/out/full" >/dev/null 2>"$t/err"); rc=$?
want_error "$rc" "capture onto a full disk"
grep -q "File too large" "$t/err" || fail "capture onto a full disk does not say why"
[[ ! -e "$t/out/full" ]] || fail "capture onto a full disk left a bundle"
no_temps "$t/out" "capture onto a full disk"

(ulimit -f 8; "$bin" store push "$t/new" --store "$t/store" >/dev/null 2>"$t/err"); rc=$?
want_error "$rc" "store push into a full store"
grep -q "File too large" "$t/err" || fail "store push into a full store does not say why"
intact "store push into a full store"

# --- A read-only store ---
if [[ $(id -u) == 0 ]]; then
  echo "SKIP read-only store: running as root, which ignores permission bits (run as another user)"
else
  find "$t/store" -type d -exec chmod 0555 {} +
  "$bin" store push "$t/new" --store "$t/store" >/dev/null 2>"$t/err"; rc=$?
  want_error "$rc" "store push into a read-only store"
  grep -q "Permission denied" "$t/err" || fail "store push into a read-only store does not say why"
  intact "store push into a read-only store"

  mkdir -p "$t/nobundles"
  "$bin" store gc --root "$t/store" --bundles "$t/nobundles" --yes >/dev/null 2>"$t/err"; rc=$?
  want_error "$rc" "store gc of a read-only store"
  grep -q "Permission denied" "$t/err" || fail "store gc of a read-only store does not say why"
  intact "store gc of a read-only store"

  mkdir -p "$t/ro"; chmod 0555 "$t/ro"
  "$bin" capture "$t/g.rk" --inputs "$t/x2.bin" -o "$t/ro/b" >/dev/null 2>"$t/err"; rc=$?
  want_error "$rc" "capture into a read-only directory"
  grep -q "Permission denied" "$t/err" || fail "capture into a read-only directory does not say why"
  [[ ! -e "$t/ro/b" ]] || fail "capture into a read-only directory left a bundle"
  chmod -R u+w "$t/store" "$t/ro"
fi

# Both conditions gone, the same push succeeds.
"$bin" store push "$t/new" --store "$t/store" >/dev/null 2>"$t/err" || fail "store push once there is room"
"$bin" store verify --root "$t/store" >/dev/null 2>"$t/err" || fail "store verify after the push"

(( fails == 0 )) && echo PASS
exit $(( fails > 0 ))
