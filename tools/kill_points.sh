#!/usr/bin/env bash
# Crash consistency: SIGKILLs `reprokit capture`, `minify`, `fuzz` and
# `store gc` at random points and checks after each kill (docs/RELIABILITY.md):
#   capture  OUT is absent or a bundle whose blobs verify; a rerun succeeds
#   minify   `minify --resume` reaches the graph of an uninterrupted run
#   fuzz     rerunning the campaign finds what an uninterrupted one finds
#   gc       `store verify` is clean and every referenced object is there
# and, after every kill and its recovery: no .tmp.* beside OUT, no
# reprokit-values-* scratch store left in TMPDIR, no partial object visible
# (verify would name it).
#
#   tools/kill_points.sh [POINTS] [SEED]   default 100 points, seed 1
#   REPROKIT=path/to/reprokit tools/kill_points.sh 20
#
# Prints one line per kill point and a summary line:
#   "kill points: N survived (K killed, the rest finished first), M failed (...)".
# Exit 0 when every point survived. //tools:kill_points_test runs 8 points.
set -uo pipefail
points="${1:-100}"
RANDOM="${2:-1}"
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
bin="${REPROKIT:-$root/bazel-bin/tools/reprokit}"
[[ -x "$bin" ]] || { echo "kill_points: no reprokit at $bin (bazel build //tools:reprokit)" >&2; exit 2; }
work="$(mktemp -d "${TMPDIR:-/tmp}/reprokit-kill-XXXXXX")"
trap 'rm -rf "$work"' EXIT
export TMPDIR="$work/tmp"; mkdir -p "$TMPDIR"
export REPROKIT_STORE="$work/default-store"
graph="$root/examples/mlp.rk"
faults="faults=relu:accuracy"
failed=0; survived=0; killed=0
declare -A by_kind=([capture]=0 [minify]=0 [fuzz]=0 [gc]=0)
fail() { echo "  FAIL: $*"; failed=$((failed + 1)); point_ok=0; }

# A command's run time, in milliseconds, when nothing interrupts it.
timed() { local s e; s=$(date +%s%N); "$@" >/dev/null 2>&1; e=$(date +%s%N); echo $(( (e - s) / 1000000 )); }

# (Kills fall in the first 70% of that time: run times vary, and a command
# that finishes first tests nothing.)
# Runs a command in the background and SIGKILLs it after `ms` milliseconds
# (or lets it finish first). Prints "killed" or "finished".
kill_after() {
  local ms="$1"; shift
  "$@" >/dev/null 2>&1 &
  local pid=$!
  sleep "$(printf '%d.%03d' $((ms / 1000)) $((ms % 1000)))"
  if kill -9 "$pid" 2>/dev/null; then wait "$pid" 2>/dev/null; echo killed
  else wait "$pid" 2>/dev/null; echo finished; fi
}

no_leftovers() {  # DIR...: no .tmp.* entries, no scratch stores in TMPDIR
  local d
  for d in "$@"; do
    if compgen -G "$d/.tmp.*" >/dev/null; then fail "leftover $(ls -d "$d"/.tmp.* | head -1)"; fi
  done
  if compgen -G "$TMPDIR/reprokit-values-*" >/dev/null; then
    fail "leftover scratch store $(ls -d "$TMPDIR"/reprokit-values-* | head -1)"
  fi
}

verify_blobs() {  # BUNDLE: its blobs/ store verifies
  [[ -d "$1/blobs" ]] || return 0
  "$bin" store verify --root "$1/blobs" >/dev/null 2>"$work/verify.err" || fail "store verify $1/blobs: $(cat "$work/verify.err")"
}

# References: an uninterrupted capture, minify and campaign.
"$bin" capture "$graph" --opt "$faults" -o "$work/ref-bundle" >/dev/null 2>&1 \
  || { echo "kill_points: the reference capture failed" >&2; exit 2; }
t_capture=$(timed "$bin" capture "$graph" --opt "$faults" -o "$work/ref-bundle2")
t_minify=$(timed "$bin" minify "$work/ref-bundle" -o "$work/ref-min" -j 1)
ref_graph="$(cat "$work/ref-min/graph.rk")"
fuzz_args=(--iterations 10 --seed 5 -j 1 --nodes 6 --max-elems 64 --fault add:accuracy,mul:accuracy
           --no-gpu --no-o0 --no-emit --quiet --minimize-time 3)
t_fuzz=$(timed "$bin" fuzz --out "$work/ref-fuzz" "${fuzz_args[@]}")
ref_findings="$(ls "$work/ref-fuzz/findings" 2>/dev/null | sort | tr '\n' ' ')"
echo "uninterrupted: capture ${t_capture} ms, minify ${t_minify} ms, fuzz ${t_fuzz} ms (findings: ${ref_findings:-none})"

# The gc store: the objects of one bundle (referenced) and of another with 12
# inputs (unreferenced), each input a 16 KiB blob.
printf 'graph @g(%%x: f32[4096]) {\n  %%r = relu(%%x) : f32[4096]\n  return %%r\n}\n' > "$work/g.rk"
{
  printf 'graph @junk('
  for i in $(seq 0 11); do printf '%s%%x%d: f32[4096]' "$([[ $i == 0 ]] || echo ', ')" "$i"; done
  printf ') {\n  %%r = relu(%%x0) : f32[4096]\n  return %%r\n}\n'
} > "$work/junk.rk"
make_gc_store() {
  rm -rf "$work/gc-store" "$work/gc-bundles" "$work/junk"; mkdir -p "$work/gc-bundles" "$work/gc-store/cas"
  head -c 16384 /dev/urandom > "$work/x.bin"
  "$bin" capture "$work/g.rk" --inputs "$work/x.bin" -o "$work/gc-bundles/b" >/dev/null 2>&1
  cp -r "$work/gc-bundles/b/blobs/cas/." "$work/gc-store/cas/"
  local i inputs=()
  for i in $(seq 0 11); do head -c 16384 /dev/urandom > "$work/x$i.bin"; inputs+=(--inputs "$work/x$i.bin"); done
  "$bin" capture "$work/junk.rk" "${inputs[@]}" -o "$work/junk" >/dev/null 2>&1
  cp -r "$work/junk/blobs/cas/." "$work/gc-store/cas/"
  rm -rf "$work/junk"
}
referenced_present() {
  local f
  for f in $(cd "$work/gc-bundles/b/blobs" && find cas -type f ! -name '.tmp.*'); do
    [[ -f "$work/gc-store/$f" ]] || { fail "gc removed referenced object $f"; return; }
  done
}
make_gc_store
t_gc=$(timed "$bin" store gc --root "$work/gc-store" --bundles "$work/gc-bundles" --yes)

kinds=(capture minify fuzz gc)
for ((p = 1; p <= points; p++)); do
  kind="${kinds[$(( (p - 1) % 4 ))]}"
  point_ok=1
  case "$kind" in
    capture)
      ms=$(( RANDOM % (t_capture * 7 / 10 + 1) ))
      out="$work/cap"
      [[ $((RANDOM % 2)) == 0 ]] && rm -rf "$out"   # sometimes over an existing bundle
      r=$(kill_after "$ms" "$bin" capture "$graph" --opt "$faults" -o "$out")
      if [[ -e "$out" ]]; then
        verify_blobs "$out"
        "$bin" check "$out" >/dev/null 2>&1; rc=$?
        [[ $rc == 1 ]] || fail "capture killed at ${ms} ms: OUT exists but does not reproduce (check exit $rc)"
      fi
      "$bin" capture "$graph" --opt "$faults" -o "$out" >/dev/null 2>&1 || fail "capture after the kill failed"
      verify_blobs "$out"
      no_leftovers "$work"
      ;;
    minify)
      ms=$(( RANDOM % (t_minify * 7 / 10 + 1) ))
      out="$work/min"; rm -rf "$out"
      r=$(kill_after "$ms" "$bin" minify "$work/ref-bundle" -o "$out" -j 1)
      resume=(); [[ -e "$out" ]] && resume=(--resume)
      "$bin" minify "$work/ref-bundle" -o "$out" -j 1 "${resume[@]}" >/dev/null 2>"$work/min.err"
      rc=$?
      [[ $rc == 0 ]] || fail "minify ${resume[*]} after a kill at ${ms} ms: exit $rc: $(tail -1 "$work/min.err")"
      [[ "$(cat "$out/graph.rk" 2>/dev/null)" == "$ref_graph" ]] || fail "minify after a kill at ${ms} ms: a different result"
      verify_blobs "$out"
      no_leftovers "$work"
      ;;
    fuzz)
      ms=$(( RANDOM % (t_fuzz * 7 / 10 + 1) ))
      out="$work/fuzz"; rm -rf "$out"
      r=$(kill_after "$ms" "$bin" fuzz --out "$out" "${fuzz_args[@]}")
      "$bin" fuzz --out "$out" "${fuzz_args[@]}" >/dev/null 2>&1
      got="$(ls "$out/findings" 2>/dev/null | sort | tr '\n' ' ')"
      [[ "$got" == "$ref_findings" ]] || fail "fuzz resumed after a kill at ${ms} ms found '$got', want '$ref_findings'"
      no_leftovers "$work" "$out"
      ;;
    gc)
      make_gc_store
      ms=$(( RANDOM % (t_gc * 7 / 10 + 1) ))
      r=$(kill_after "$ms" "$bin" store gc --root "$work/gc-store" --bundles "$work/gc-bundles" --yes)
      "$bin" store verify --root "$work/gc-store" >/dev/null 2>"$work/verify.err" \
        || fail "store verify after gc killed at ${ms} ms: $(cat "$work/verify.err")"
      referenced_present
      "$bin" store gc --root "$work/gc-store" --bundles "$work/gc-bundles" --yes >/dev/null 2>&1 \
        || fail "gc after a kill failed"
      referenced_present
      left=$(find "$work/gc-store/cas" -type f ! -name '.tmp.*' | wc -l)
      want=$(find "$work/gc-bundles/b/blobs/cas" -type f ! -name '.tmp.*' | wc -l)
      [[ $left == "$want" ]] || fail "gc after a kill left $left objects, want $want"
      ;;
  esac
  if (( point_ok )); then survived=$((survived + 1)); else by_kind[$kind]=$((by_kind[$kind] + 1)); fi
  [[ "${r:-}" == killed ]] && killed=$((killed + 1))
  echo "point $p: $kind ${r:-} at ${ms} ms: $( ((point_ok)) && echo survived || echo FAILED)"
done
echo "kill points: $survived survived ($killed killed, the rest finished first), $failed failed (capture ${by_kind[capture]}, minify ${by_kind[minify]}, fuzz ${by_kind[fuzz]}, gc ${by_kind[gc]})"
(( failed == 0 ))
