#!/usr/bin/env bash
# Load on one shared store (docs/RELIABILITY.md): 8 processes capture
# different small graphs, push each bundle's blobs into the store and drop
# the bundle's own copy, while 2 processes run `store gc` over the store
# in a loop, for RK_LOAD_SECONDS (default 10; 60 on demand). Then:
# `store verify` is clean, every bundle finds all its blobs in the store
# (`store pull`), and every bundle replays (`run --store`) with its recorded
# verdict: exit 0 for a passing graph, exit 1 for one captured with a
# compile_error fault.
#
#   bazel test //tools:store_load_test
#   RK_LOAD_SECONDS=60 bazel test //tools:store_load_test --test_env=RK_LOAD_SECONDS
#   tools/store_load_test.sh [bazel-bin/tools/reprokit]   (outside Bazel)
set -u
bin="${1:-${TEST_SRCDIR:-.}/reprokit/tools/reprokit}"
[[ -x "$bin" ]] || bin="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)/bazel-bin/tools/reprokit"
t="$(mktemp -d "${TEST_TMPDIR:-${TMPDIR:-/tmp}}/store-load-XXXXXX")"
seconds="${RK_LOAD_SECONDS:-10}"
writers=8; collectors=2
store="$t/store"; bundles="$t/bundles"
mkdir -p "$store" "$bundles"
export TMPDIR="$t/tmp"; mkdir -p "$TMPDIR"
fails=0
fail() { echo "FAIL: $*"; fails=$((fails + 1)); }
ops=(relu exp neg tanh sigmoid abs)

# One writer: capture, push, drop the bundle's blobs, until the deadline.
# Records "BUNDLE EXPECTED_RUN_EXIT" lines in $t/w<k>.list.
writer() {
  local k="$1" deadline="$2" i=0 n op fault want dir
  while (( $(date +%s) < deadline )); do
    n=$(( 16 + (k * 131 + i * 17) % 240 ))
    op="${ops[$(( (k + i) % ${#ops[@]} ))]}"
    dir="$bundles/w$k/b$i"
    printf 'graph @w%d_%d(%%x: f32[%d], %%y: f32[%d]) {\n  %%s = add(%%x, %%y) : f32[%d]\n  %%r = %s(%%s) : f32[%d]\n  return %%r\n}\n' \
      "$k" "$i" "$n" "$n" "$n" "$op" "$n" > "$t/w$k.rk"
    head -c $(( 4 * n )) /dev/urandom > "$t/w$k.x"
    head -c $(( 4 * n )) /dev/urandom > "$t/w$k.y"
    fault=(); want=0
    if (( i % 3 == 2 )); then fault=(--opt "faults=$op:compile_error"); want=1; fi
    if ! "$bin" capture "$t/w$k.rk" --inputs "$t/w$k.x" --inputs "$t/w$k.y" "${fault[@]}" \
        -o "$dir" >/dev/null 2>"$t/w$k.err"; then
      echo "capture $dir: $(tail -1 "$t/w$k.err")" >> "$t/errors"
    elif ! "$bin" store push "$dir" --store "$store" >/dev/null 2>"$t/w$k.err"; then
      echo "push $dir: $(tail -1 "$t/w$k.err")" >> "$t/errors"
    else
      rm -rf "$dir/blobs"
      echo "$dir $want" >> "$t/w$k.list"
    fi
    i=$((i + 1))
  done
}

collector() {
  local k="$1" deadline="$2" runs=0
  while (( $(date +%s) < deadline )); do
    "$bin" store gc --root "$store" --bundles "$bundles" --yes >/dev/null 2>"$t/gc$k.err" \
      || echo "gc: $(tail -1 "$t/gc$k.err")" >> "$t/errors"
    runs=$((runs + 1))
  done
  echo "$runs" > "$t/gc$k.runs"
}

deadline=$(( $(date +%s) + seconds ))
pids=()
for ((k = 0; k < writers; k++)); do writer "$k" "$deadline" & pids+=($!); done
for ((k = 0; k < collectors; k++)); do collector "$k" "$deadline" & pids+=($!); done
for p in "${pids[@]}"; do wait "$p"; done

[[ ! -s "$t/errors" ]] || fail "errors under load: $(head -5 "$t/errors")"
cat "$t"/w*.list > "$t/all.list" 2>/dev/null
captured=$(wc -l < "$t/all.list")
gc_runs=$(awk '{ s += $1 } END { print s + 0 }' "$t"/gc*.runs)
(( captured >= writers )) || fail "only $captured bundles captured in $seconds s"
(( gc_runs >= collectors )) || fail "only $gc_runs gc runs in $seconds s"

"$bin" store verify --root "$store" >/dev/null 2>"$t/err" || fail "store verify: $(cat "$t/err")"
replayed=0
while read -r dir want; do
  # The thin bundle must find every blob in the store: pull fails naming any
  # the gc removed.
  "$bin" store pull "$dir" --store "$store" >/dev/null 2>"$t/err" \
    || { fail "blobs of $dir lost: $(tail -1 "$t/err")"; continue; }
  "$bin" run "$dir" >/dev/null 2>"$t/err"; rc=$?
  [[ $rc == "$want" ]] || { fail "run $dir: exit $rc, recorded verdict wants $want: $(tail -1 "$t/err")"; continue; }
  replayed=$((replayed + 1))
done < "$t/all.list"
echo "store load: $writers writers, $collectors gc loops, $seconds s: $captured bundles captured and pushed, $gc_runs gc runs, $replayed replayed, $fails failures"
rm -rf "$t"
(( fails == 0 )) && echo PASS
exit $(( fails > 0 ))
