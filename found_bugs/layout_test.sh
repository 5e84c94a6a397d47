#!/usr/bin/env bash
# The found_bugs/ layout (docs/FOUND_BUGS.md): every folder holds a bundle/
# with repro.json and graph.rk, recorded with an external backend, and a
# standalone/ with a README.md; docs/FOUND_BUGS.md has an entry ("### <name>:")
# for each. Passes with no bugs yet.
set -uo pipefail
root="${TEST_SRCDIR:-}/${TEST_WORKSPACE:-}"
[[ -d "$root/found_bugs" ]] || root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
doc="$root/docs/FOUND_BUGS.md"
failures=0 count=0
fail() { echo "FAIL: $*"; failures=$((failures + 1)); }
[[ -f "$doc" ]] || fail "no docs/FOUND_BUGS.md"
for dir in "$root"/found_bugs/*/; do
  [[ -d "$dir" ]] || continue
  name="$(basename "$dir")"
  count=$((count + 1))
  [[ -f "$dir/bundle/repro.json" && -f "$dir/bundle/graph.rk" ]] || fail "$name: no bundle/"
  grep -q '"backend": "[^"]' "$dir/bundle/repro.json" 2>/dev/null ||
    fail "$name: the bundle names no external backend"
  [[ -f "$dir/standalone/README.md" ]] || fail "$name: no standalone/ (reprokit export --standalone)"
  grep -q "^### $name:" "$doc" || fail "$name: no entry '### $name:' in docs/FOUND_BUGS.md"
done
echo "$count found bug(s), $failures failure(s)"
[[ $failures == 0 ]]
