#!/usr/bin/env bash
# Crash consistency in CI: tools/kill_points.sh with 8 kill points (two each
# for capture, minify, fuzz and store gc); the 100-point run is on demand
# (docs/RELIABILITY.md).
set -u
export REPROKIT="$TEST_SRCDIR/reprokit/tools/reprokit"
exec "$TEST_SRCDIR/reprokit/tools/kill_points.sh" 8 "${KILL_POINTS_SEED:-3}"
