#!/usr/bin/env bash
# Runs on the GPU machine, from the repository root, with .device/ carried
# (made here by tools/build_device_bundle.sh). No Bazel there: the binaries
# are unpacked to /tmp/rk and run directly.
#
#   tools/run_device_gpu.sh tests     # GPU gtests + the CLI on an example
#   tools/run_device_gpu.sh bench     # bench/gpu_bench (add --quick after it for small shapes)
#   tools/run_device_gpu.sh torch     # bench/torch_compare.py (PyTorch 2.11, Inductor)
#   tools/run_device_gpu.sh cold      # cold start: each case's first compile in a fresh
#                                     # process, reprokit (median of 5) then Inductor (1 run;
#                                     # `cold --repeat N` for more)
#   tools/run_device_gpu.sh fuzz [S]  # reprokit fuzz, cpu + cpu-O0 + cuda vs fp64, S seconds (60)
#   tools/run_device_gpu.sh all [S]   # tests, bench (+ JIT -O1 and driver-cache reruns), torch,
#                                     # cold, then fuzz for S seconds (0: no fuzz)
# Logs and results go to /tmp/rk/out; when $OUT is set (the device tool
# brings back at most 8 files) everything is also packed into
# $OUT/results.tar.gz, with the main text results beside it.
set -uo pipefail
cd "$(dirname "$0")/.."

what="${1:-all}"
shift || true
out=/tmp/rk/out
mkdir -p /tmp/rk "$out"

unpack() {
  if [[ ! -d .device ]]; then
    echo "run_device_gpu: .device/ is missing: build it with tools/build_device_bundle.sh and carry it" >&2
    exit 2
  fi
  for f in .device/*.xz; do
    name="$(basename "$f" .xz)"
    [[ -x "/tmp/rk/$name" ]] || { xz -dc "$f" > "/tmp/rk/$name" && chmod +x "/tmp/rk/$name"; }
  done
  cp .device/libdevice.10.bc /tmp/rk/
  export REPROKIT_LIBDEVICE=/tmp/rk/libdevice.10.bc
  nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.sm,clocks.max.sm --format=csv,noheader || true
  cat .device/COMMIT 2>/dev/null || true
}

run_tests() {
  /tmp/rk/cuda_program_test --gtest_output="xml:$out/cuda_program_test.xml" > "$out/cuda_program_test.log" 2>&1
  local status=$?
  /tmp/rk/cuda_two_pass_test --gtest_output="xml:$out/cuda_two_pass_test.xml" >> "$out/cuda_program_test.log" 2>&1 || status=1
  grep -E '^\[ *(OK|FAILED|SKIPPED|PASSED) *\]|Failure|error|rmse' "$out/cuda_program_test.log" | head -80
  echo "--- reprokit compile --device=cuda examples/softmax.rk"
  mkdir -p /tmp/rk/dump
  if [[ -f examples/softmax.rk ]]; then
    /tmp/rk/reprokit compile examples/softmax.rk --device=cuda --dump /tmp/rk/dump || status=1
    tar -C /tmp/rk -czf "$out/dump.tar.gz" dump
  fi
  return $status
}

run_bench() {
  /tmp/rk/gpu_bench --json "$out/gpu_bench.json" "$@" 2>&1 | tee "$out/gpu_bench.txt"
  return "${PIPESTATUS[0]}"
}

run_torch() {
  PYTHONUNBUFFERED=1 python3 bench/torch_compare.py --json "$out/torch_compare.json" "$@" 2>&1 |
    tee "$out/torch_compare.txt"
  return "${PIPESTATUS[0]}"
}

run_cold() {
  echo "--- reprokit: gpu_bench --cold-start --repeat 5"
  /tmp/rk/gpu_bench --cold-start --repeat 5 --json "$out/cold_start.json" "$@" 2>&1 |
    tee "$out/cold_start.txt"
  local a=${PIPESTATUS[0]}
  echo "--- Inductor: torch_compare.py --cold-start"
  PYTHONUNBUFFERED=1 python3 bench/torch_compare.py --cold-start \
    --json "$out/torch_cold_start.json" "$@" 2>&1 | tee "$out/torch_cold_start.txt"
  local b=${PIPESTATUS[0]}
  return $((a | b))
}

run_fuzz() {
  local seconds="${1:-60}"
  local dir=/tmp/rk/fuzz_gpu
  /tmp/rk/reprokit fuzz --time "${seconds}s" -j 8 --out "$dir" --no-emit --quiet \
    --minimize-time 10 > "$out/fuzz.log" 2>&1
  local status=$?
  echo "--- reprokit fuzz exit $status"
  cp "$dir/summary.md" "$dir/summary.json" "$out/" 2>/dev/null || true
  cat "$dir/summary.md" 2>/dev/null | head -60
  tar -C /tmp/rk -czf "$out/fuzz_gpu.tar.gz" fuzz_gpu 2>/dev/null || true
  # 1 means new findings, which is a result, not a broken run.
  [[ $status -le 1 ]]
}

pack() {
  [[ -n "${OUT:-}" ]] || return 0
  tar -C /tmp/rk -czf "$OUT/results.tar.gz" out
  local name
  # At most 7 beside the archive (the device tool brings back 8 files); the
  # -O1 and rerun variants of gpu_bench are in the archive only.
  for name in cuda_program_test.log gpu_bench.txt torch_compare.txt cold_start.txt \
              torch_cold_start.txt summary.md; do
    [[ -f "$out/$name" ]] && cp "$out/$name" "$OUT/"
  done
  return 0
}

# The compile-latency variants: the driver's JIT at -O1, and a second
# process with the driver's on-disk JIT cache warm from the first.
run_bench_variants() {
  echo "--- gpu_bench with REPROKIT_CUDA_JIT_O=1"
  REPROKIT_CUDA_JIT_O=1 /tmp/rk/gpu_bench --json "$out/gpu_bench_jit_o1.json" > "$out/gpu_bench_jit_o1.txt" 2>&1
  local a=$?
  tail -16 "$out/gpu_bench_jit_o1.txt"
  echo "--- gpu_bench again (driver JIT cache warm)"
  /tmp/rk/gpu_bench --json "$out/gpu_bench_rerun.json" > "$out/gpu_bench_rerun.txt" 2>&1
  local b=$?
  tail -16 "$out/gpu_bench_rerun.txt"
  return $((a | b))
}

case "$what" in
  tests) unpack; run_tests; s=$?; pack; exit $s ;;
  bench) unpack; run_bench "$@"; s=$?; pack; exit $s ;;
  torch) run_torch "$@"; s=$?; pack; exit $s ;;
  cold) unpack; run_cold "$@"; s=$?; pack; exit $s ;;
  fuzz) unpack; run_fuzz "$@"; s=$?; pack; exit $s ;;
  all)
    unpack
    # Packed after each step: a call cut off at its limit still brings back
    # what finished.
    run_tests; t=$?; pack
    run_bench; b=$?; pack
    run_bench_variants || b=1; pack
    run_torch; p=$?; pack
    run_cold || p=1; pack
    f=0
    if [[ "${1:-0}" != 0 ]]; then run_fuzz "$1"; f=$?; pack; fi
    echo "=== tests exit $t, bench exit $b, torch exit $p, fuzz exit $f"
    exit $((t | b | p | f)) ;;
  *) echo "usage: tools/run_device_gpu.sh tests|bench|torch|cold|fuzz|all [args]" >&2; exit 2 ;;
esac
