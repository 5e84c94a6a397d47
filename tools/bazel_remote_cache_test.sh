#!/usr/bin/env bash
# One nginx is both reprokit's remote store and Bazel's --remote_cache: an
# emitted repro workspace is built with --remote_cache pointing at it, and
# after `bazel clean` the rebuild is served from the cache ("remote cache
# hit"). reprokit's blobs and Bazel's outputs then sit side by side under
# /cas/, each file named by the SHA-256 of its raw bytes (docs/STORE.md).
#
# Like emit_e2e_test, the nested workspace links the runner the outer build
# made (--prebuilt-runner), so it compiles only the generated main.
set -euo pipefail

fail() { echo "FAIL: $*" >&2; exit 1; }
runfile() { local p="${TEST_SRCDIR}/reprokit/$1"; [[ -e "$p" ]] || fail "missing runfile $1"; echo "$p"; }

REPROKIT="$(runfile tools/reprokit)"
RUNNER_SO="$(runfile repro/emit/libreprokit_runner.so)"
NGINX="$(runfile repro/store/testdata/nginx_server.sh)"
ROOT="$(dirname "$(dirname "$(readlink -f "$(runfile repro/defs.bzl)")")")"
[[ -f "$ROOT/repro/emit/runner.cc" ]] || fail "cannot find the reprokit checkout (got $ROOT)"

T="${TEST_TMPDIR:-$(mktemp -d)}"
WS="$T/ws"
OB="$T/ob"
rm -rf "$WS"
outer_env=(-u RUNFILES_DIR -u RUNFILES_MANIFEST_FILE -u RUNFILES_MANIFEST_ONLY -u JAVA_RUNFILES
  -u PYTHON_RUNFILES -u XML_OUTPUT_FILE $(compgen -e | grep '^TEST_' | sed 's/^/-u /'))
nested() { (cd "$WS" && env "${outer_env[@]}" bazel --output_base="$OB" --max_idle_secs=60 "$@"); }
port=$("$NGINX" start "$T/nginx")
trap '(cd "$WS" 2>/dev/null && bazel --output_base="$OB" shutdown) >/dev/null 2>&1 || true; "$NGINX" stop "$T/nginx"' EXIT
url="http://127.0.0.1:$port/shared"

cat > "$T/relu.rk" <<'GRAPH'
graph @g(%x: f32[4]) {
  %y = relu(%x) : f32[4]
  return %y
}
GRAPH
printf '0123456789abcdef' > "$T/x.bin"
"$REPROKIT" capture "$T/relu.rk" --inputs "$T/x.bin" --opt faults=relu:accuracy -o "$T/acc" >/dev/null \
  || fail "capture"
"$REPROKIT" store push "$T/acc" --store "$url" | grep -q "1 pushed" || fail "store push"
"$REPROKIT" emit "$T/acc" --package repros/relu_acc --workspace "$WS" --reprokit "$ROOT" \
  --prebuilt-runner "$RUNNER_SO" >/dev/null || fail "emit"

echo "== first build fills the remote cache"
nested build --remote_cache="$url" //repros/relu_acc:relu_acc > "$T/build1.log" 2>&1 \
  || { cat "$T/build1.log"; fail "first build"; }
cat "$T/build1.log"
[[ -n "$(ls "$T/nginx/root/shared/ac" 2>/dev/null)" ]] || fail "Bazel stored no action results"

echo "== clean, rebuild: served by the cache"
nested clean > /dev/null 2>&1
nested build --remote_cache="$url" //repros/relu_acc:relu_acc > "$T/build2.log" 2>&1 \
  || { cat "$T/build2.log"; fail "second build"; }
cat "$T/build2.log"
grep -q "remote cache hit" "$T/build2.log" || fail "the second build had no remote cache hit"

echo "== one CAS: reprokit's blob and Bazel's outputs, all named by their SHA-256"
x_hex=$(sha256sum "$T/x.bin" | cut -c1-64)
[[ -f "$T/nginx/root/shared/cas/$x_hex" ]] || fail "reprokit's blob is not in the CAS"
n=0
for f in "$T/nginx/root/shared/cas/"*; do
  [[ "$(sha256sum "$f" | cut -c1-64)" == "$(basename "$f")" ]] || fail "$f is not named by its SHA-256"
  n=$((n+1))
done
[[ $n -ge 3 ]] || fail "expected Bazel's outputs beside reprokit's blob, found $n entries"
echo "$n CAS entries, each named by its SHA-256"
echo PASS
