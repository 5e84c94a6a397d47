#!/usr/bin/env bash
# The content store on a Bazel HTTP remote cache, end to end with a real
# nginx on 127.0.0.1 (docs/STORE.md): store push/pull, run --store through a
# local cache (the second run needs no server), pack --store; then bad
# input: malformed URLs, a refused connection, an unknown host, TLS against
# a plain server, missing and wrong credentials, an HTML answer, 500s.
set -u
R="$TEST_SRCDIR/reprokit/tools/reprokit"
NGINX="$TEST_SRCDIR/reprokit/repro/store/testdata/nginx_server.sh"
BAD="$TEST_SRCDIR/reprokit/repro/store/testdata/bad_server.py"
tmp="$TEST_TMPDIR"
cd "$tmp" || exit 1
out="$tmp/out" err="$tmp/err"
fails=0
fail() { echo "FAIL: $*"; cat "$out" "$err"; fails=$((fails+1)); }
expect() {  # expect CODE DESCRIPTION -- command...
  local want=$1 what=$2; shift 3
  "$@" >"$out" 2>"$err"; local got=$?
  if [[ $got != "$want" ]]; then fail "$what: exit $got, want $want"; else echo "ok: $what"; fi
}
bad_pid=""
cleanup() {
  "$NGINX" stop "$tmp/nginx"
  "$NGINX" stop "$tmp/nginx_auth"
  [[ -n "$bad_pid" ]] && kill "$bad_pid" 2>/dev/null
}
trap cleanup EXIT
port=$("$NGINX" start "$tmp/nginx") || { echo "FAIL: nginx did not start"; exit 1; }
url="http://127.0.0.1:$port/team"
export REPROKIT_STORE_CACHE="$tmp/cache"

cat > g.rk <<'GRAPH'
graph @small(%x: f32[4,8], %b: f32[8]) {
  %s = add(%x, %b) : f32[4,8]
  %r = relu(%s) : f32[4,8]
  return %r
}
GRAPH
head -c 128 /dev/urandom > x.bin
head -c 32 /dev/urandom > b.bin
expect 0 "capture with stored inputs" -- "$R" capture g.rk --inputs x.bin --inputs b.bin -o good
x_hex=$(sha256sum x.bin | cut -c1-64)

expect 0 "push a bundle" -- "$R" store push good --store "$url"
grep -q "2 blobs, 2 pushed" "$out" || fail "push summary"
cmp -s x.bin "$tmp/nginx/root/team/cas/$x_hex" || fail "the blob is not a raw CAS entry on the server"
expect 0 "push again: nothing to send" -- "$R" store push good --store "$url"
grep -q "0 pushed, 2 already there" "$out" || fail "second push"

# A bundle without its blobs: seeded data without a store, the real inputs with one.
cp -r good thin && rm -rf thin/blobs
"$R" run good | tail -n +2 > want.txt
expect 0 "run without blobs falls back to seeded data" -- "$R" run thin
grep -q "is missing; using seeded random data" "$err" || fail "no missing-blob warning"
expect 0 "run --store fetches the blobs" -- "$R" run thin --store "$url"
grep -q "missing" "$err" && fail "run --store still missed a blob"
tail -n +2 "$out" | cmp -s - want.txt || fail "run --store differs from the full bundle"
"$NGINX" stop "$tmp/nginx"
expect 0 "a repeated run needs no server (local cache)" -- "$R" run thin --store "$url"
tail -n +2 "$out" | cmp -s - want.txt || fail "cached run differs"
expect 125 "push to a stopped server: cannot test" -- "$R" store push good --store "$url"
grep -q "reprokit: store: .*127.0.0.1:$port/team/cas/.*attempts" "$err" || fail "refused message"
port=$("$NGINX" start "$tmp/nginx" "$port") || fail "nginx did not restart"

# pull and pack make a bundle self-contained again (a fresh cache each).
REPROKIT_STORE_CACHE="$tmp/cache2" expect 0 "pull" -- "$R" store pull thin --store "$url"
grep -q "2 pulled" "$out" || fail "pull summary"
expect 0 "the pulled bundle runs alone" -- "$R" run thin
grep -q "missing" "$err" && fail "pulled bundle still misses a blob"
cp -r good thin2 && rm -rf thin2/blobs
REPROKIT_STORE_CACHE="$tmp/cache3" expect 0 "pack --store" -- "$R" pack thin2 --store "$url" -o thin2.tar.zst
expect 0 "unpack" -- "$R" unpack thin2.tar.zst -o unpacked
expect 0 "the packed bundle runs alone" -- "$R" run unpacked
grep -q "missing" "$err" && fail "packed bundle misses a blob"

# Bad input.
expect 2 "malformed URL" -- "$R" store push good --store "http://127.0.0.1:notaport/x"
grep -q "bad store URL" "$err" || fail "malformed URL message"
expect 2 "unsupported scheme" -- "$R" store pull good --store "ftp://127.0.0.1/x"
expect 125 "unknown host" -- "$R" store push good --store "http://no-such-host.invalid/x"
expect 2 "TLS against a plain server" -- "$R" store push good --store "https://127.0.0.1:$port/team"
grep -q "TLS" "$err" || fail "TLS message"
expect 2 "stats of a remote store" -- "$R" store stats --store "$url"

auth_port=$(NGINX_AUTH_USER=ci NGINX_AUTH_PASSWORD=hunter2 "$NGINX" start "$tmp/nginx_auth")
auth_url="http://127.0.0.1:$auth_port/team"
expect 2 "auth required, none given" -- "$R" store push good --store "$auth_url"
grep -q "HTTP 401: authentication failed" "$err" || fail "auth message"
REPROKIT_STORE_USER=ci REPROKIT_STORE_PASSWORD=wrong \
  expect 2 "wrong password" -- "$R" store push good --store "$auth_url"
grep -q "wrong" "$err" && fail "the password was printed"
REPROKIT_STORE_USER=ci REPROKIT_STORE_PASSWORD=hunter2 \
  expect 0 "right password" -- "$R" store push good --store "$auth_url"
expect 0 "credentials in the URL" -- "$R" store push good --store "http://ci:hunter2@127.0.0.1:$auth_port/team"
grep -q "hunter2" "$out" "$err" && fail "the password was printed"

mkdir -p bad && bad_port=$(python3 "$BAD" bad) && bad_pid=$(cat bad/bad_server.pid)
cp -r good thin3 && rm -rf thin3/blobs
REPROKIT_STORE_CACHE="$tmp/cache4" expect 2 "an HTML page instead of the blob" -- \
  "$R" store pull thin3 --store "http://127.0.0.1:$bad_port/html"
grep -q "HTML" "$err" || fail "HTML message"
[[ -z "$(ls -A thin3/blobs/cas 2>/dev/null)" ]] || fail "a bad body was stored in the bundle"
[[ -z "$(find "$tmp/cache4" -type f 2>/dev/null)" ]] || fail "a bad body was cached"
REPROKIT_STORE_CACHE="$tmp/cache4" expect 125 "500 from the server" -- \
  "$R" store pull thin3 --store "http://127.0.0.1:$bad_port/500"
grep -q "HTTP 500" "$err" || fail "500 message"
REPROKIT_STORE_CACHE="$tmp/cache4" expect 2 "404: the store lacks the blobs" -- \
  "$R" store pull thin3 --store "http://127.0.0.1:$bad_port/404"
grep -q "in neither the bundle nor the store" "$err" || fail "404 message"

[[ $fails == 0 ]] || { echo "$fails failure(s)"; exit 1; }
echo PASS
