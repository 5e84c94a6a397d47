#!/usr/bin/env bash
# Installs the Debian packages reprokit builds against, and only the missing
# ones. Idempotent; a no-op taking a few milliseconds when all are present.
#
#   tools/install_deps.sh           install what is missing (needs root or sudo)
#   tools/install_deps.sh --check   exit 1 if anything is missing, install nothing
set -euo pipefail

PACKAGES=(
  bazel-bootstrap   # Bazel 4.2.3, offline (WORKSPACE mode)
  g++
  llvm-19-dev       # LLVM 19: ORC JIT, x86 and NVPTX back ends
  libabsl-dev       # absl::Status, strings, flags
  libcereal-dev     # versioned binary serialization
  libzstd-dev       # compression in the content store
  libssl-dev        # SHA-256 (libcrypto EVP)
  libgtest-dev      # unit tests
  googletest
  libgmock-dev
  libbenchmark-dev  # bench/
  graphviz          # reprokit show --svg
  git
  python3           # tools/source_references.py (a test)
  libonnx-dev       # ONNX import/export: protobuf classes + model checker
  libprotobuf-dev
  protobuf-compiler
  python3-onnx      # ONNX's node test cases and onnx.helper (ONNX tests)
  python3-numpy
  chromium          # renders reports in tools/report_browser_test.sh (headless)
  libcurl4-openssl-dev  # the remote content store (Bazel HTTP cache protocol)
  nginx-light       # WebDAV PUT: the remote store's tests run their own on 127.0.0.1
  clang-19          # tools/fuzz_inputs.sh: the libFuzzer harnesses
  libfuzzer-19-dev
  libclang-rt-19-dev  # ASan, UBSan and libFuzzer runtimes for clang-19
)

# Fast path: one stat per marker file instead of asking dpkg.
MARKERS=(
  /usr/bin/bazel
  /usr/bin/g++
  /usr/lib/llvm-19/lib/libLLVM-19.so
  /usr/include/absl/status/status.h
  /usr/include/cereal/cereal.hpp
  /usr/include/zstd.h
  /usr/include/openssl/evp.h
  /usr/lib/x86_64-linux-gnu/libgtest.a
  /usr/lib/x86_64-linux-gnu/libgmock.a
  /usr/include/benchmark/benchmark.h
  /usr/bin/dot
  /usr/bin/git
  /usr/bin/python3
  /usr/include/onnx/onnx-ml.pb.h
  /usr/include/google/protobuf/message.h
  /usr/bin/protoc
  /usr/lib/python3/dist-packages/onnx/__init__.py
  /usr/lib/python3/dist-packages/numpy/__init__.py
  /usr/bin/chromium
  /usr/include/x86_64-linux-gnu/curl/curl.h
  /usr/sbin/nginx
  /usr/bin/clang++-19
  /usr/lib/llvm-19/lib/libFuzzer.a
  /usr/lib/llvm-19/lib/clang/19/lib/linux/libclang_rt.fuzzer-x86_64.a
)
all_there=1
for m in "${MARKERS[@]}"; do
  [[ -e "$m" ]] || { all_there=0; break; }
done
[[ $all_there == 1 ]] && exit 0

missing=()
for p in "${PACKAGES[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
[[ ${#missing[@]} == 0 ]] && exit 0

if [[ "${1:-}" == "--check" ]]; then
  echo "missing packages: ${missing[*]}" >&2
  exit 1
fi

SUDO=""
if [[ $(id -u) != 0 ]]; then
  command -v sudo >/dev/null || { echo "install_deps: need root to install: ${missing[*]}" >&2; exit 1; }
  SUDO=sudo
fi
echo "install_deps: installing ${missing[*]}" >&2
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -qq >&2
$SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}" >&2
