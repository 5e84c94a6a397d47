#!/usr/bin/env bash
# `reprokit compile` with the on-disk kernel cache: two processes compiling
# the same graph into one cache at once, a third reading every kernel from it
# with the same outputs, corrupt entries recompiled, the cache's directory
# from the environment (REPROKIT_KERNEL_CACHE, XDG_CACHE_HOME, HOME; "off"),
# and --timings naming the kernels and where each came from.
set -u
bin="$TEST_SRCDIR/reprokit/tools/reprokit"
examples="$TEST_SRCDIR/reprokit/examples"
out="$TEST_TMPDIR/out" err="$TEST_TMPDIR/err"
fails=0
fail() { echo "FAIL: $*"; cat "$out" "$err"; fails=$((fails+1)); }
outputs() { grep -A3 '"outputs"' "$1"; }
cache="$TEST_TMPDIR/kernels"
unset XDG_CACHE_HOME

# Two cold compiles racing on the same entries.
REPROKIT_KERNEL_CACHE="$cache" "$bin" compile --json "$examples/attention.rk" >"$TEST_TMPDIR/a" 2>&1 &
pid_a=$!
REPROKIT_KERNEL_CACHE="$cache" "$bin" compile --json "$examples/attention.rk" >"$TEST_TMPDIR/b" 2>&1 &
pid_b=$!
wait $pid_a || fail "first concurrent compile failed: $(cat "$TEST_TMPDIR/a")"
wait $pid_b || fail "second concurrent compile failed: $(cat "$TEST_TMPDIR/b")"
[[ "$(outputs "$TEST_TMPDIR/a")" == "$(outputs "$TEST_TMPDIR/b")" ]] || fail "racing compiles disagree"
entries=$(find "$cache" -name '*.o' | wc -l)
[[ $entries -gt 0 ]] || fail "nothing stored in $cache"
[[ $(find "$cache" -type f ! -name '*.o' | wc -l) == 0 ]] || fail "temporaries left in $cache"

# Warm: every kernel from disk, the same outputs.
REPROKIT_KERNEL_CACHE="$cache" "$bin" compile --json "$examples/attention.rk" >"$out" 2>"$err" ||
  fail "warm compile failed"
grep -q "\"disk_cached_kernels\": $entries," "$out" || fail "warm compile did not read all $entries kernels"
grep -q '"source": "compiled"' "$out" && fail "warm compile compiled a kernel"
[[ "$(outputs "$out")" == "$(outputs "$TEST_TMPDIR/a")" ]] || fail "warm outputs differ from cold"

# Corrupt entries are recompiled and replaced.
for f in "$cache"/*.o; do head -c 300 "$f" >"$f.cut" && mv "$f.cut" "$f"; done
REPROKIT_KERNEL_CACHE="$cache" "$bin" compile --json "$examples/attention.rk" >"$out" 2>"$err" ||
  fail "compile over corrupt entries failed"
grep -q '"disk_cached_kernels": 0,' "$out" || fail "a corrupt entry was used"
[[ "$(outputs "$out")" == "$(outputs "$TEST_TMPDIR/a")" ]] || fail "outputs after corruption differ"
REPROKIT_KERNEL_CACHE="$cache" "$bin" compile --json "$examples/attention.rk" >"$out" 2>"$err"
grep -q "\"disk_cached_kernels\": $entries," "$out" || fail "corrupt entries were not replaced"

# --timings: the slowest kernels and their source.
REPROKIT_KERNEL_CACHE="$TEST_TMPDIR/timings" "$bin" compile --timings "$examples/mlp.rk" >"$out" 2>"$err" ||
  fail "compile --timings failed"
grep -q "^slowest kernels to compile" "$out" || fail "--timings lists no kernels"
grep -Eq "^  k[0-9]+ +compiled " "$out" || fail "--timings names no compiled kernel"
grep -q "from the disk cache 0" "$out" || fail "--timings lacks the cache counts"

# Where the cache lives.
unset REPROKIT_KERNEL_CACHE  # .bazelrc turns it off for every other test
home="$TEST_TMPDIR/home"
mkdir -p "$home"
HOME="$home" REPROKIT_KERNEL_CACHE=off "$bin" compile "$examples/softmax.rk" >"$out" 2>"$err" ||
  fail "compile with the cache off failed"
[[ -e "$home/.cache/reprokit" ]] && fail "REPROKIT_KERNEL_CACHE=off still wrote a cache"
HOME="$home" "$bin" compile "$examples/softmax.rk" >"$out" 2>"$err" || fail "compile under HOME failed"
ls "$home/.cache/reprokit/kernels/"*.o >/dev/null 2>&1 || fail "no cache under ~/.cache/reprokit/kernels"
HOME="$home" XDG_CACHE_HOME="$TEST_TMPDIR/xdg" "$bin" compile "$examples/softmax.rk" >"$out" 2>"$err" ||
  fail "compile under XDG_CACHE_HOME failed"
ls "$TEST_TMPDIR/xdg/reprokit/kernels/"*.o >/dev/null 2>&1 || fail "no cache under XDG_CACHE_HOME"
exit $((fails > 0))
