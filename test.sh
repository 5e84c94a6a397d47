#!/usr/bin/env bash
# The test command: installs missing packages, runs every Bazel test, prints a
# per-target summary and, last, "N passed, M failed" counting individual test
# cases (gtest cases, or one per non-gtest target) from bazel-testlogs.
# Extra arguments go to `bazel test` (e.g. ./test.sh --config=asan).
#
# After the main run come the hardening stages (docs/RELIABILITY.md), each
# counted as one case: a chosen subset of the unit tests under ASan+UBSan, the
# store, worker-pool and thread tests under TSan, and every libFuzzer harness
# for RK_FUZZ_SECONDS seconds (default 10; 0 skips the stage; the corpora are
# replayed in the main run either way). RK_QUICK=1 skips them all.
set -uo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
cd "$root"
"$root/tools/install_deps.sh" || { echo "0 passed, 1 failed"; exit 1; }

start=$(date +%s)
log="$(mktemp)"
bazel test //... --test_summary=short "$@" 2>&1 | tee "$log"
bazel_rc=${PIPESTATUS[0]}
testlogs="$(bazel info bazel-testlogs "$@" 2>/dev/null)"
# Only this workspace's test targets count: a test's own log may print the
# summary lines of a nested workspace's Bazel run (the emission e2e test does).
targets="$(mktemp)"
bazel query 'tests(//...)' --output=label 2>/dev/null | sort -u > "$targets"

echo
echo "== per-target summary =="
passed=0; failed=0; skipped=0
# Lines like "//compiler/ir:graph_test    PASSED in 0.3s".
while read -r target status _; do
  rel="${target#//}"; rel="${rel/://}"
  # Sharded tests leave one test.xml per shard.
  xmls=()
  for x in "$testlogs/$rel/test.xml" "$testlogs/$rel"/shard_*_of_*/test.xml; do
    [[ -f "$x" ]] && xmls+=("$x")
  done
  (( ${#xmls[@]} )) || xmls=(/dev/null)
  read -r t f s < <(awk '
    /<testsuite / {
      if (match($0, / tests="[0-9]+"/))    { v=substr($0,RSTART,RLENGTH); gsub(/[^0-9]/,"",v); t+=v }
      if (match($0, / failures="[0-9]+"/)) { v=substr($0,RSTART,RLENGTH); gsub(/[^0-9]/,"",v); f+=v }
      if (match($0, / errors="[0-9]+"/))   { v=substr($0,RSTART,RLENGTH); gsub(/[^0-9]/,"",v); f+=v }
      if (match($0, / skipped="[0-9]+"/))  { v=substr($0,RSTART,RLENGTH); gsub(/[^0-9]/,"",v); s+=v }
    }
    END { printf "%d %d %d\n", t, f, s }' "${xmls[@]}" 2>/dev/null)
  if [[ "$status" != PASSED && $f == 0 ]]; then f=1; fi   # crashed, timed out, or failed to build
  if [[ "$status" == PASSED && $t == 0 ]]; then t=1; fi   # a test target with no cases
  p=$((t - f - s)); (( p < 0 )) && p=0
  passed=$((passed + p)); failed=$((failed + f)); skipped=$((skipped + s))
  printf "  %-60s %-8s %4d cases, %d failed, %d skipped\n" "$target" "$status" "$t" "$f" "$s"
done < <(grep -E '^//[^ ]+ +(\(cached\) )?(PASSED|FAILED|TIMEOUT|FLAKY|NO STATUS|FAILED TO BUILD|INCOMPLETE)' "$log" \
          | sed 's/(cached) //' | awk '{print $1, $2}' | sort -u -k1,1 \
          | awk 'NR == FNR { mine[$1] = 1; next } ($1 in mine)' "$targets" -)
rm -f "$log" "$targets"
if [[ $bazel_rc != 0 && $failed == 0 ]]; then
  echo "bazel test exited with $bazel_rc (build failure?)"
  failed=1
fi

# The sanitizer subset (docs/RELIABILITY.md says why these): ASan+UBSan over
# the packages that parse and store, and the fuzz corpora replayed.
ASAN_TARGETS=(//base/... //repro/store/... //compiler/ir:parser_test //compiler/ir:printer_test
              //compiler/ir:verifier_test //tools:flags_test //tools/fuzzers:rk_text_corpus_test
              //tools/fuzzers:store_object_corpus_test //tools/fuzzers:flags_corpus_test)
# The TSan subset: what runs threads or processes side by side and links no
# LLVM (docs/RELIABILITY.md).
TSAN_TARGETS=(//base:parallel_for_test //base:child_process_test //base:subprocess_test
              //repro/store:local_store_test //repro/store:local_store_concurrency_test
              //repro/isolate:worker_pool_test)
stage() {  # NAME COMMAND...: one case, passed when COMMAND exits 0
  local name="$1"; shift
  local stage_log; stage_log="$(mktemp)"
  local t0; t0=$(date +%s)
  if "$@" >"$stage_log" 2>&1; then
    passed=$((passed + 1))
    printf "  %-60s %-8s %4d s\n" "stage $name" PASSED $(( $(date +%s) - t0 ))
  else
    failed=$((failed + 1))
    printf "  %-60s %-8s %4d s\n" "stage $name" FAILED $(( $(date +%s) - t0 ))
    tail -40 "$stage_log" | sed 's/^/    /'
  fi
  grep -E '^fuzz ' "$stage_log" | sed 's/^/    /'
  rm -f "$stage_log"
}
if [[ "${RK_QUICK:-0}" != 1 ]]; then
  echo
  echo "== hardening stages =="
  stage asan bazel test --config=asan --test_summary=terse "${ASAN_TARGETS[@]}"
  stage tsan bazel test --config=tsan --test_summary=terse "${TSAN_TARGETS[@]}"
  if [[ "${RK_FUZZ_SECONDS:-10}" != 0 ]]; then
    stage fuzz "$root/tools/fuzz_inputs.sh" "${RK_FUZZ_SECONDS:-10}"
  fi
fi
echo "wall time: $(( $(date +%s) - start )) s"
if (( skipped > 0 )); then
  echo "$passed passed, $failed failed, $skipped skipped"
else
  echo "$passed passed, $failed failed"
fi
[[ $failed == 0 ]]
