#!/usr/bin/env bash
# Installs the Debian packages reprokit builds against, and only the missing
# ones, then ONNX Runtime's CPU build from npm (third_party/onnxruntime_node:
# onnxruntime-node pinned by its committed lockfile, `npm ci --ignore-scripts`)
# for the onnxruntime backend. Idempotent; a no-op taking a few milliseconds
# when all are present.
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
  python3-torch     # torch.fx / make_fx ATen graphs (python/reprokit_torch tests)
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
  /usr/lib/python3/dist-packages/torch/__init__.py
  /usr/bin/chromium
  /usr/include/x86_64-linux-gnu/curl/curl.h
  /usr/sbin/nginx
  /usr/bin/clang++-19
  /usr/lib/llvm-19/lib/libFuzzer.a
  /usr/lib/llvm-19/lib/clang/19/lib/linux/libclang_rt.fuzzer-x86_64.a
)
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
CHECK_ONLY=0
[[ "${1:-}" == "--check" ]] && CHECK_ONLY=1

apt_install() {  # PACKAGE...: apt-get install, as root or through sudo
  local sudo=""
  if [[ $(id -u) != 0 ]]; then
    command -v sudo >/dev/null || { echo "install_deps: need root to install: $*" >&2; exit 1; }
    sudo=sudo
  fi
  echo "install_deps: installing $*" >&2
  export DEBIAN_FRONTEND=noninteractive
  $sudo apt-get update -qq >&2
  $sudo apt-get install -y -qq --no-install-recommends "$@" >&2
}

install_debian_packages() {
  local m p
  for m in "${MARKERS[@]}"; do
    [[ -e "$m" ]] || break
  done
  [[ -e "$m" ]] && return 0
  local missing=()
  for p in "${PACKAGES[@]}"; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
  done
  [[ ${#missing[@]} == 0 ]] && return 0
  if [[ $CHECK_ONLY == 1 ]]; then
    echo "missing packages: ${missing[*]}" >&2
    exit 1
  fi
  apt_install "${missing[@]}"
}

# ONNX Runtime for the onnxruntime backend where Python's onnxruntime is absent
# (backends/onnxruntime/serve_node.js). The marker is a copy of the lockfile
# the tree was installed from: a changed lockfile installs again. Scripts stay
# off: onnxruntime-node's own postinstall downloads GPU binaries from outside
# the registry; the CPU library ships in the package.
install_onnxruntime_node() {
  local dir="$ROOT/third_party/onnxruntime_node"
  local marker="$dir/node_modules/.reprokit-installed-lock.json"
  cmp -s "$dir/package-lock.json" "$marker" 2>/dev/null && return 0
  if [[ $CHECK_ONLY == 1 ]]; then
    echo "missing: onnxruntime-node in $dir/node_modules (npm ci)" >&2
    exit 1
  fi
  if ! command -v node >/dev/null || ! command -v npm >/dev/null; then
    apt_install nodejs npm
  fi
  echo "install_deps: npm ci onnxruntime-node in $dir" >&2
  if ! (cd "$dir" && npm ci --ignore-scripts --no-audit --no-fund --loglevel=error >&2); then
    echo "install_deps: FAILED to install onnxruntime-node (npm ci --ignore-scripts in" \
         "$dir); the onnxruntime backend needs it where Python's onnxruntime is absent" >&2
    exit 1
  fi
  if ! (cd "$dir" && node -e "require('onnxruntime-node')" >&2); then
    echo "install_deps: onnxruntime-node was installed in $dir but does not load" >&2
    exit 1
  fi
  cp "$dir/package-lock.json" "$marker"
}

install_debian_packages
install_onnxruntime_node
