#!/usr/bin/env bash
# Bazel --workspace_status_command: the git commit the binary is built from.
commit=$(git rev-parse --short=12 HEAD 2>/dev/null || echo unknown)
if [[ -n "$(git status --porcelain --untracked-files=no 2>/dev/null)" ]]; then
  commit="${commit}-dirty"
fi
echo "STABLE_GIT_COMMIT ${commit}"
