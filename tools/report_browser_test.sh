#!/usr/bin/env bash
# The three kinds of `reprokit report` page rendered by a real browser:
# Debian's chromium, headless, with networking cut off (a proxy that does not
# exist, loopback included) and console logging on stderr. For each page:
# the DOM after rendering holds the expected elements, the page logs no
# console message (a script error, or a load refused by the page's
# Content-Security-Policy, would be one), and a screenshot is drawn.
# With REPORT_SCREENSHOTS=DIR the screenshots are copied there (docs/images).
set -u
bin="$TEST_SRCDIR/reprokit/tools/reprokit"
examples="$TEST_SRCDIR/reprokit/examples"
T="$TEST_TMPDIR"
cd "$T" || exit 1
browser="$(command -v chromium || command -v chromium-browser || true)"
if [[ -z "$browser" ]]; then
  # tools/install_deps.sh installs chromium; CI always has it.
  echo "SKIPPED: chromium is not installed (tools/install_deps.sh installs it)"
  exit 0
fi
export HOME="$T/home"
mkdir -p "$HOME"
fails=0
fail() { echo "FAIL: $*"; fails=$((fails+1)); }
run() {  # run DESCRIPTION -- command...: must exit 0 or 1 (a fuzz finding)
  local what=$1; shift 2
  "$@" >"$T/run.out" 2>"$T/run.err"; local got=$?
  if [[ $got -gt 1 ]]; then fail "$what: exit $got"; cat "$T/run.out" "$T/run.err"; else echo "ok: $what"; fi
}

chromium_run() {  # chromium_run PROFILE ARGS...: headless, offline, logging to stderr
  local profile="$T/profile-$1"; shift
  timeout 120 "$browser" --headless --no-sandbox --disable-gpu --no-first-run \
    --user-data-dir="$profile" --proxy-server=127.0.0.1:9 --proxy-bypass-list='<-loopback>' \
    --host-resolver-rules='MAP * ~NOTFOUND' --enable-logging=stderr --v=0 "$@"
}

# render NAME KIND PAGE EXPECTED...: dump the DOM and a screenshot; check both.
render() {
  local name=$1 kind=$2 page=$3; shift 3
  [[ -s "$page" ]] || { fail "$name: $page was not written"; return; }
  chromium_run "$name-dom" --dump-dom "file://$page" >"$T/$name.dom" 2>"$T/$name.log"
  [[ $? == 0 ]] || fail "$name: chromium --dump-dom failed"
  grep -q "<body data-report=\"$kind\">" "$T/$name.dom" || fail "$name: no <body data-report=$kind> in the DOM"
  local want
  for want in "$@"; do
    grep -qF -- "$want" "$T/$name.dom" || fail "$name: the rendered DOM lacks $want"
  done
  if grep -E ':CONSOLE|Uncaught|net::ERR' "$T/$name.log"; then
    fail "$name: console messages or network errors while loading"
  fi
  if grep -qiE '<script|src="https?:|href="https?:' "$T/$name.dom"; then
    fail "$name: the DOM has a script or a remote resource"
  fi
  # One screenshot per kind: the minimized bundle and the finding's page are
  # bundle pages, already drawn once.
  [[ $name == minimized || $name == finding ]] && { echo "ok: $name rendered"; return; }
  chromium_run "$name-shot" --window-size=1200,1600 --hide-scrollbars \
    --screenshot="$T/$name.png" "file://$page" >/dev/null 2>"$T/$name.shot.log"
  if [[ ! -s "$T/$name.png" ]] || [[ "$(head -c 8 "$T/$name.png" | od -An -tx1 | tr -d ' \n')" != 89504e470d0a1a0a ]]; then
    fail "$name: no PNG screenshot"
  else
    echo "ok: $name rendered ($(wc -c <"$page") bytes of HTML, screenshot $(wc -c <"$T/$name.png") bytes)"
    [[ -n "${REPORT_SCREENSHOTS:-}" ]] && cp "$T/$name.png" "$REPORT_SCREENSHOTS/report_$name.png"
  fi
}

# A bundle: the attention example with a planted fusion fault, minimized.
run "capture" -- "$bin" capture "$examples/attention.rk" --opt faults=fuse:wrong_index -o bug
grep -q "report: reprokit report bug -o bug.html" "$T/run.out" || fail "capture does not print the report command"
run "minify" -- "$bin" minify bug -o bug.min
grep -q "report: reprokit report bug.min -o bug.min/report.html" "$T/run.out" || fail "minify does not print the report command"
run "report of the captured bundle" -- "$bin" report bug -o "$T/bundle.html"
run "report of the minimized bundle" -- "$bin" report bug.min -o "$T/min.html"
render bundle bundle "$T/bundle.html" 'id="divergence-chart"' 'class="bar bad"' \
  '<g id="n0" class="node">' 'id="cluster0"' 'id="verdict-kind"' '<th scope="col">NaN</th>'
render minimized bundle "$T/min.html" 'id="minify-progress"' '<section id="minimization"'

# A compile dump.
run "compile --dump" -- "$bin" compile "$examples/attention.rk" --dump dump
run "report of the dump" -- "$bin" report dump -o "$T/dump.html"
render dump dump "$T/dump.html" 'id="pass-sizes"' 'id="phase-timings"' 'id="cluster0"' '<code>k0</code>'

# A short campaign; fuzz writes report.html itself.
# (Seed 1's first 12 graphs hit the planted reduce_sum fault at opt_level=0.)
run "fuzz" -- "$bin" fuzz -o fuzz --iterations 12 --seed 1 --fault relu:accuracy,reduce_sum:drop_last \
  --no-gpu --no-emit --minimize-time 10 --quiet
[[ -s fuzz/report.html ]] || fail "fuzz did not write report.html"
grep -q "report.html" "$T/run.out" || fail "fuzz does not name report.html"
render campaign campaign "$T/fuzz/report.html" 'id="judged-over-time"' 'id="coverage-heatmap"' \
  '<section id="findings"' 'href="findings/'
# The finding's own page, which the campaign page links to.
finding_page="$(ls "$T"/fuzz/findings/*/report.html 2>/dev/null | head -1)"
[[ -n "$finding_page" ]] || fail "no findings/<name>/report.html"
[[ -n "$finding_page" ]] && render finding bundle "$finding_page" 'id="verdict-kind"'

if [[ $fails != 0 ]]; then
  echo "$fails failure(s)"
  exit 1
fi
echo "PASS"
