#!/usr/bin/env bash
# reprokit_torch with Debian's torch: the converter op family by op family
# (tests/test_convert_ops.py), an MLP's forward and backward graphs, planted
# faults caught, unsupported ops listed (tests/test_convert.py); the capturing backend's logic with fake inner
# compilers, the accuracy rule and the environment switch (tests/test_backend.py).
# Every bundle goes through the real `reprokit` binary (check, run, minify).
set -euo pipefail

fail() { echo "FAIL: $*" >&2; exit 1; }
runfile() { local p="${TEST_SRCDIR}/reprokit/$1"; [[ -e "$p" ]] || fail "missing runfile $1"; echo "$p"; }
# The Debian interpreter: its dist-packages hold python3-torch (not a pyenv python first on PATH).
python=/usr/bin/python3
"$python" -c "import torch, numpy" 2>/dev/null ||
  fail "$python cannot import torch and numpy (tools/install_deps.sh installs python3-torch)"

export REPROKIT_BIN="$(runfile tools/reprokit)"
tests="$(dirname "$(runfile python/tests/test_convert.py)")"
cd "$tests"
# No bytecode next to the runfiles; one process per file keeps failures apart.
export PYTHONDONTWRITEBYTECODE=1
"$python" -m unittest -v test_convert_ops 2>&1
"$python" -m unittest -v test_convert 2>&1
"$python" -m unittest -v test_backend 2>&1
