#!/usr/bin/env bash
# Writes that fail part way (RLIMIT_FSIZE, the per-process stand-in for a full
# disk that works as any user): capture, pack and minify report an error and
# exit non-zero instead of dying of SIGXFSZ, leave no output and no temporary
# file, and what was stored before is intact. A temporary archive of a killed
# pack is removed by the next pack. docs/RELIABILITY.md.
set -u
bin="$TEST_SRCDIR/reprokit/tools/reprokit"
t="$TEST_TMPDIR"
fails=0
fail() { echo "FAIL: $*"; cat "$t/err" 2>/dev/null; fails=$((fails + 1)); }
no_temps() { if compgen -G "$1/.tmp.*" >/dev/null; then fail "$2: left $(ls -d "$1"/.tmp.* | head -1)"; fi; }

printf 'graph @g(%%x: f32[8192]) {\n  %%r = relu(%%x) : f32[8192]\n  return %%r\n}\n' > "$t/g.rk"
head -c 32768 /dev/urandom > "$t/x.bin"
"$bin" capture "$t/g.rk" --inputs "$t/x.bin" -o "$t/ok" >/dev/null 2>&1 || fail "capture without a limit"

# capture: the 32 KiB input blob does not fit under 8 KiB.
(ulimit -f 8; "$bin" capture "$t/g.rk" --inputs "$t/x.bin" -o "$t/out/b" >/dev/null 2>"$t/err"); rc=$?
(( rc != 0 && rc < 128 )) || fail "capture under RLIMIT_FSIZE: exit $rc (want an error, not a signal)"
grep -q "File too large" "$t/err" || fail "capture under RLIMIT_FSIZE does not say why"
[[ ! -e "$t/out/b" ]] || fail "capture under RLIMIT_FSIZE left a bundle"
no_temps "$t/out" capture

# pack: the archive does not fit in 1 KiB.
(ulimit -f 1; "$bin" pack "$t/ok" -o "$t/ok.tar.zst" >/dev/null 2>"$t/err"); rc=$?
(( rc != 0 && rc < 128 )) || fail "pack under RLIMIT_FSIZE: exit $rc (want an error, not a signal)"
[[ ! -e "$t/ok.tar.zst" ]] || fail "pack under RLIMIT_FSIZE left an archive"
no_temps "$t" pack

# The bundle written before is untouched by all of this.
"$bin" store verify --root "$t/ok/blobs" >/dev/null 2>"$t/err" || fail "the earlier bundle's store no longer verifies"
"$bin" run "$t/ok" >/dev/null 2>"$t/err" || fail "the earlier bundle no longer runs"

# A temporary archive of a pack killed with SIGKILL is removed by the next pack.
sleep 600 & gone=$!; kill -9 "$gone"; wait "$gone" 2>/dev/null
printf 'partial' > "$t/.tmp.ok.tar.zst.$gone.12345"
"$bin" pack "$t/ok" -o "$t/ok.tar.zst" >/dev/null 2>"$t/err" || fail "pack"
[[ -s "$t/ok.tar.zst" ]] || fail "pack wrote no archive"
no_temps "$t" "pack after a killed pack"

(( fails == 0 )) && echo PASS
exit $(( fails > 0 ))
