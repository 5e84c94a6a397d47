#!/usr/bin/env bash
# `git bisect run` over a real git history finds the commit that turned a
# planted fault on through a checked-in options file (docs/WORKFLOWS.md,
# "Bisecting a regression in git history"). The test script is the one the
# workflow documents: `reprokit check GRAPH --opt ...`, exit 0 good, 1 bad,
# 125 skip.
set -eu
bin="$TEST_SRCDIR/reprokit/tools/reprokit"
graph="$TEST_SRCDIR/reprokit/repro/bisect/testdata/relu_chain.rk"
repo="$TEST_TMPDIR/history"
rm -rf "$repo" && mkdir -p "$repo" && cd "$repo"
export GIT_CONFIG_NOSYSTEM=1 HOME="$TEST_TMPDIR"
git init -q .
git config user.email bisect@test && git config user.name bisect
git config commit.gpgsign false

commit() { git add -A && git commit -q -m "$1"; }
cp "$graph" model.rk
echo "threads=1" > options.txt
commit "model and options"
good=$(git rev-parse HEAD)
echo "step 1" >> NOTES; commit "notes 1"
# A commit whose options do not parse, before the regression: the script must
# skip it (125), or bisect would blame it.
echo "threads=zero" >> options.txt; commit "broken options"
broken=$(git rev-parse HEAD)
sed -i '$d' options.txt; commit "fix options"
for i in 2 3; do echo "step $i" >> NOTES; commit "notes $i"; done
printf 'threads=1\nfaults=relu:accuracy\n' > options.txt
commit "turn on the relu fast path"
regression=$(git rev-parse HEAD)
for i in 4 5 6 7; do echo "step $i" >> NOTES; commit "notes $i"; done

cat > "$TEST_TMPDIR/check.sh" <<SCRIPT
#!/usr/bin/env bash
# exit 0 good, 1 bad, 125 skip (git bisect run); usage errors skip too.
args=()
while read -r opt; do [[ -n "\$opt" ]] && args+=(--opt "\$opt"); done < options.txt
"$bin" check --in-process model.rk "\${args[@]}" >/dev/null 2>&1
rc=\$?
case \$rc in 0|1|125) exit \$rc ;; *) exit 125 ;; esac
SCRIPT
chmod +x "$TEST_TMPDIR/check.sh"  # outside the tree: checkouts must not touch it

# The script's verdicts on the three kinds of commit.
branch=$(git symbolic-ref --short HEAD)
verdict() { git checkout -q "$1" && { "$TEST_TMPDIR/check.sh" && echo 0 || echo $?; }; }
[[ $(verdict "$good") == 0 && $(verdict "$broken") == 125 && $(verdict "$regression") == 1 ]] || {
  echo "FAIL: check.sh verdicts good/broken/regression: $(verdict "$good") $(verdict "$broken")" \
    "$(verdict "$regression"), want 0 125 1"; exit 1; }
git checkout -q "$branch"

git bisect start HEAD "$good" >/dev/null
git bisect run "$TEST_TMPDIR/check.sh" > "$TEST_TMPDIR/bisect.log" 2>&1 || {
  echo "FAIL: git bisect run failed"; cat "$TEST_TMPDIR/bisect.log"; exit 1; }
found=$(git rev-parse refs/bisect/bad)
git bisect reset >/dev/null 2>&1
if [[ "$found" != "$regression" ]]; then
  echo "FAIL: git bisect found $found, want $regression"; cat "$TEST_TMPDIR/bisect.log"; exit 1
fi
grep -q "$regression is the first bad commit" "$TEST_TMPDIR/bisect.log" || {
  echo "FAIL: no first-bad line"; cat "$TEST_TMPDIR/bisect.log"; exit 1; }
echo "ok: git bisect run lands on $regression"
