#!/usr/bin/env bash
# Runs on the GPU machine, from the repository root, with .device/ carried
# (made here by tools/build_device_bundle.sh). No Bazel there: the binaries
# are unpacked to /tmp/rk and run directly.
#
#   tools/run_device_gpu.sh tests     # GPU gtests + the CLI on an example
#   tools/run_device_gpu.sh bench     # bench/gpu_bench (add --quick after it for small shapes)
#   tools/run_device_gpu.sh torch     # bench/torch_compare.py (PyTorch 2.11, Inductor)
#   tools/run_device_gpu.sh all       # tests, then bench
# Results go to $OUT when set (the device tool brings them back), else /tmp/rk/out.
set -uo pipefail
cd "$(dirname "$0")/.."

what="${1:-all}"
shift || true
out="${OUT:-/tmp/rk/out}"
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
  nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader || true
}

run_tests() {
  local status=0
  /tmp/rk/cuda_program_test --gtest_output="xml:$out/cuda_program_test.xml" 2>&1 |
    tee "$out/cuda_program_test.log" | grep -E '^\[ *(OK|FAILED|SKIPPED|PASSED) *\]|Failure|error' || true
  [[ "${PIPESTATUS[0]}" -eq 0 ]] || status=1
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

case "$what" in
  tests) unpack; run_tests ;;
  bench) unpack; run_bench "$@" ;;
  torch) run_torch "$@" ;;
  all) unpack; run_tests; t=$?; run_bench "$@"; b=$?; exit $((t | b)) ;;
  *) echo "usage: tools/run_device_gpu.sh tests|bench|torch|all [args]" >&2; exit 2 ;;
esac
