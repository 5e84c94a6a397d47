#!/usr/bin/env bash
# ONNX's backend node tests through reprokit on the CPU: generates the cases
# with Debian's python3-onnx (no network, nothing checked in), runs them with
# onnx_conformance and fails if any case of a supported op fails. The table
# goes to the test's undeclared outputs (docs/ONNX.md keeps a copy).
set -euo pipefail
here="${TEST_SRCDIR}/${TEST_WORKSPACE}/testing/onnx"
python=/usr/bin/python3  # Debian's, which has python3-onnx
if ! "$python" -c "import onnx" 2>/dev/null; then
  echo "FAIL: $python cannot import onnx; tools/install_deps.sh installs python3-onnx" >&2
  exit 1
fi
cases="${TEST_TMPDIR}/cases"
"$python" "$here/make_node_cases.py" "$cases"
out="${TEST_UNDECLARED_OUTPUTS_DIR:-$TEST_TMPDIR}/onnx_conformance.md"
"$here/onnx_conformance" "$cases" --markdown "$out"
