#!/usr/bin/env bash
# Wall-clock costs of the remote store through the real CLI
# (docs/BENCHMARKS.md, "Remote store"):
#   1. `reprokit run BUNDLE --store URL` of a bundle whose 64 MiB input lives
#      only on the remote store: cold (empty local cache, the blob comes over
#      loopback from nginx) vs warm (the local cache has it);
#   2. `reprokit fuzz merge` of 4 shard records of 1,000 findings each
#      (signatures overlapping across shards: 1,600 distinct), --no-emit.
#
#   bazel build -c opt //tools:reprokit && bench/remote_store_bench.sh
#   MERGE_ONLY=1 bench/remote_store_bench.sh     # only the merge
set -euo pipefail
R=${REPROKIT:-bazel-bin/tools/reprokit}
NGINX=repro/store/testdata/nginx_server.sh
T=$(mktemp -d /tmp/remote_store_bench.XXXXXX)
port=$("$NGINX" start "$T/nginx")
trap '"$NGINX" stop "$T/nginx"; rm -rf "$T"' EXIT
url="http://127.0.0.1:$port/bench"
now() { date +%s.%N; }
secs() { python3 -c "print(f'{$2 - $1:.2f}')"; }

if [[ "${MERGE_ONLY:-0}" != 1 ]]; then
cat > "$T/big.rk" <<'GRAPH'
graph @big(%x: f32[16777216]) {
  %y = relu(%x) : f32[16777216]
  return %y
}
GRAPH
head -c $((64 << 20)) /dev/urandom > "$T/x.bin"
"$R" capture "$T/big.rk" --inputs "$T/x.bin" -o "$T/bundle" >/dev/null
"$R" store push "$T/bundle" --store "$url" >/dev/null
"$R" run "$T/bundle" >/dev/null  # page cache, JIT libraries
cp -r "$T/bundle" "$T/thin" && rm -rf "$T/thin/blobs"
echo "| run of a bundle with a 64 MiB input on the remote store | seconds |"
echo "| --- | --- |"
a=$(now); "$R" run "$T/bundle" >/dev/null; b=$(now)
echo "| self-contained bundle (blobs/ holds the input) | $(secs "$a" "$b") |"
for i in 1 2 3; do
  rm -rf "$T/cache"
  a=$(now); REPROKIT_STORE_CACHE="$T/cache" "$R" run "$T/thin" --store "$url" >/dev/null; b=$(now)
  echo "| cold local cache, run $i | $(secs "$a" "$b") |"
done
for i in 1 2 3; do
  a=$(now); REPROKIT_STORE_CACHE="$T/cache" "$R" run "$T/thin" --store "$url" >/dev/null; b=$(now)
  echo "| warm local cache, run $i | $(secs "$a" "$b") |"
done
fi

# Merge: one real finding's record and bundle, replicated into 4 x 1,000.
"$R" fuzz --iterations 8 --seed 5 --fault exp:compile_error --minimize-time 5 --no-gpu \
  --no-emit --quiet --store "$url" --out "$T/seed" >/dev/null 2>&1 || true
python3 - "$T" <<'PY'
import copy, json, sys
t = sys.argv[1]
base = json.load(open(f"{t}/seed/campaign-record.json"))
finding = base["findings"][0]
for shard in range(4):
    r = copy.deepcopy(base)
    r["campaign"]["shard"] = f"{shard}/4"
    r["findings"] = []
    for k in range(1000):
        f = copy.deepcopy(finding)
        n = (shard * 200 + k) % 1600  # neighbours overlap: 1,600 signatures in all
        f["finding"]["signature"] = f"{finding['finding']['signature']}-{n}"
        f["finding"]["name"] = f"finding_{n}"
        f["finding"]["minimized_nodes"] = 1 + (k + shard) % 5
        r["findings"].append(f)
    json.dump(r, open(f"{t}/r{shard}.json", "w"))
PY
a=$(now)
"$R" fuzz merge "$T"/r0.json "$T"/r1.json "$T"/r2.json "$T"/r3.json --store "$url" --no-emit \
  -o "$T/merged" > "$T/merge.out" || true  # exit 1: new findings
b=$(now)
head -n 1 "$T/merge.out"
echo "merge wall time: $(secs "$a" "$b") s"
