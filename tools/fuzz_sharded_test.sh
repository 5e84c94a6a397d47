#!/usr/bin/env bash
# A fuzz campaign through Bazel test sharding: each shard runs
# `reprokit fuzz` without --shard, so it takes its slice from Bazel's
# TEST_SHARD_INDEX/TEST_TOTAL_SHARDS, touches TEST_SHARD_STATUS_FILE, and
# leaves its reports in the test's undeclared outputs (bazel-testlogs/.../
# test.outputs/outputs.zip). A new finding fails the shard (exit 1).
#
#   bazel test //tools:fuzz_sharded_test                       # CI: 40 graphs a shard
#   bazel test //tools:fuzz_sharded_test --test_env=REPROKIT_FUZZ_TIME=30m \
#       --test_timeout=2400                                    # nightly
set -euo pipefail
fail() { echo "FAIL: $*" >&2; exit 1; }

REPROKIT="${TEST_SRCDIR}/reprokit/tools/reprokit"
out="${TEST_UNDECLARED_OUTPUTS_DIR:-$(mktemp -d)}/fuzz"
budget=(--iterations "${REPROKIT_FUZZ_ITERATIONS:-40}")
[[ -n "${REPROKIT_FUZZ_TIME:-}" ]] && budget=(--time "$REPROKIT_FUZZ_TIME")
[[ -n "${TEST_SHARD_STATUS_FILE:-}" ]] && rm -f "$TEST_SHARD_STATUS_FILE"

set +e
"$REPROKIT" fuzz "${budget[@]}" --seed "${REPROKIT_FUZZ_SEED:-1}" --no-emit --quiet --out "$out"
code=$?
set -e
[[ -f "$out/summary.md" ]] && cat "$out/summary.md" | sed -n '1,25p'
if [[ -n "${TEST_TOTAL_SHARDS:-}" ]]; then
  [[ -f "${TEST_SHARD_STATUS_FILE}" ]] || fail "the shard status file was not touched"
  grep -q "| seed, shard | ${REPROKIT_FUZZ_SEED:-1}, ${TEST_SHARD_INDEX}/${TEST_TOTAL_SHARDS} |" \
    "$out/summary.md" || fail "summary does not name shard ${TEST_SHARD_INDEX}/${TEST_TOTAL_SHARDS}"
fi
[[ $code == 0 ]] || fail "reprokit fuzz exited $code (1: new findings; see $out/summary.md)"
echo "PASS"
