#!/usr/bin/env bash
# Builds what the GPU machine runs (it has no Bazel and no LLVM) into the
# git-ignored folder .device/, to be carried by the device tool:
#   reprokit              the CLI (`reprokit compile --device=cuda ...`)
#   cuda_program_test     the GPU differential and fault tests (gtest)
#   cuda_two_pass_test    the GPU tests of few long rows in two passes (gtest)
#   gpu_bench             kernel bandwidth and compile latency (bench/gpu_bench.cc)
#   libdevice.10.bc       CUDA's math library in bitcode (found next to the binaries)
# The binaries are static (--config=static: LLVM, Abseil, libstdc++; glibc stays
# dynamic and the GPU machine's is newer), stripped and xz-compressed so the
# folder stays well under the 64 MiB carry limit; tools/run_device_gpu.sh
# unpacks them on the GPU machine. Prints the folder's size last.
#
#   tools/build_device_bundle.sh            # output base ~/.cache/bazel_device
#   REPROKIT_DEVICE_OUTPUT_BASE=DIR tools/build_device_bundle.sh
set -euo pipefail
cd "$(dirname "$0")/.."

output_base="${REPROKIT_DEVICE_OUTPUT_BASE:-$HOME/.cache/bazel_device}"
targets=(//tools:reprokit //compiler/tests:cuda_program_test //compiler/tests:cuda_two_pass_test
         //bench:gpu_bench)
bazel --output_base="$output_base" build --config=static --symlink_prefix=/ "${targets[@]}"
bin="$(bazel --output_base="$output_base" info --config=static bazel-bin 2>/dev/null)"

libdevice="${CUDA_PATH:-/usr/local/cuda}/nvvm/libdevice/libdevice.10.bc"
if [[ ! -f "$libdevice" ]]; then
  echo "build_device_bundle: $libdevice not found (set CUDA_PATH)" >&2
  exit 1
fi

rm -rf .device
mkdir -p .device
for path in tools/reprokit compiler/tests/cuda_program_test compiler/tests/cuda_two_pass_test \
            bench/gpu_bench; do
  name="$(basename "$path")"
  cp "$bin/$path" ".device/$name"
  chmod u+w ".device/$name"
  strip ".device/$name" 2>/dev/null || true
  xz -T2 -6 ".device/$name"
done
cp "$libdevice" .device/libdevice.10.bc
git rev-parse HEAD > .device/COMMIT 2>/dev/null || true
git status --short > .device/STATUS 2>/dev/null || true

ls -l .device
size=$(du -sb .device | cut -f1)
echo "build_device_bundle: .device is $((size / 1024 / 1024)) MiB (carry limit 64 MiB, with the working tree)"
if (( size > 56 * 1024 * 1024 )); then
  echo "build_device_bundle: too large to carry with the working tree" >&2
  exit 1
fi
