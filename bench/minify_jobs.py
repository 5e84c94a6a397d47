#!/usr/bin/env python3
"""What -j buys `reprokit minify` with the built-in CPU oracle (issue #37 item 2).

The DAG of bench/fx_minifier_compare.py (--dry: N elementwise f32[64,64] nodes,
one relu at N/2), captured with relu:accuracy planted, minimized with -j 1 and
-j J alternately, RUNS times each, once with the default search and once with
--partitions. Prints each run (wall time of the whole command, calls issued /
used, final compute nodes) and per search the median -j 1 and -j J times,
their ratio and the calls ratio.

Exit 1 when a -j J run did not accept -j 1's sequence (the stats'
accepted_sequence), did not end on -j 1's graph (graph.rk and the input blobs
it names), or issued more than twice -j 1's calls; 2 on bad usage.

  python3 bench/minify_jobs.py REPROKIT [--n 1000] [--jobs 8] [--runs 3] [--default-only]

REPROKIT: the binary (//tools:reprokit, e.g. a --config=static build).
"""

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))


def minify(reprokit, bundle, out, jobs, extra):
    shutil.rmtree(out, ignore_errors=True)
    t0 = time.monotonic()
    proc = subprocess.run([reprokit, "minify", bundle, "-o", out, "-j", str(jobs), "--json"]
                          + extra, capture_output=True, text=True)
    wall = time.monotonic() - t0
    if proc.returncode != 0:
        sys.exit("minify -j %d %s failed (%d): %s" % (jobs, " ".join(extra), proc.returncode,
                                                       proc.stderr[-2000:]))
    text = proc.stdout
    stats = json.loads(text[text.index("{"):])
    with open(os.path.join(out, "graph.rk")) as f:
        graph = f.read()
    return wall, stats, graph


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("reprokit")
    parser.add_argument("--n", type=int, default=1000)
    parser.add_argument("--jobs", type=int, default=8)
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--work", default="")
    parser.add_argument("--default-only", action="store_true",
                        help="only the default search (a binary without --partitions)")
    args = parser.parse_args()
    reprokit = os.path.abspath(args.reprokit)
    if not os.access(reprokit, os.X_OK):
        print("%s: not an executable" % args.reprokit, file=sys.stderr)
        return 2
    work = args.work or tempfile.mkdtemp(prefix="minify_jobs_")
    dags = os.path.join(work, "dags")
    subprocess.run([sys.executable, os.path.join(HERE, "fx_minifier_compare.py"), "--dry",
                    "--sizes", str(args.n), "--seeds", "1", "--out", dags],
                   check=True, stdout=subprocess.DEVNULL)
    bundle = os.path.join(work, "bug")
    shutil.rmtree(bundle, ignore_errors=True)
    subprocess.run([reprokit, "capture", os.path.join(dags, "N%d_s1.rk" % args.n), "--opt",
                    "faults=relu:accuracy", "-o", bundle], check=True, stdout=subprocess.DEVNULL)
    # One run to warm the on-disk kernel cache (not counted).
    minify(reprokit, bundle, os.path.join(work, "warm"), 1, [])
    ok = True
    summary = []
    searches = [("default", [])]
    if not args.default_only:
        searches.append(("--partitions", ["--partitions"]))
    for name, extra in searches:
        walls = {1: [], args.jobs: []}
        reference = None
        for _ in range(args.runs):
            for jobs in (1, args.jobs):
                wall, stats, graph = minify(reprokit, bundle, os.path.join(work, "min%d" % jobs),
                                            jobs, extra)
                walls[jobs].append(wall)
                if jobs == 1 and reference is None:
                    reference = (stats, graph)
                ref_stats, ref_graph = reference
                same_sequence = stats.get("accepted_sequence") == ref_stats.get("accepted_sequence")
                same_graph = graph == ref_graph
                calls_ratio = stats["oracle_calls"] / ref_stats["oracle_calls"]
                line = ("%-13s N=%d -j %d: %.2f s wall, %d calls issued, %d used, final %d nodes, "
                        "same sequence as -j 1: %s, same graph: %s" % (
                            name, args.n, jobs, wall, stats["oracle_calls"],
                            stats["oracle_calls_used"], stats["final"]["compute_nodes"],
                            "yes" if same_sequence else "NO", "yes" if same_graph else "NO"))
                print(line, flush=True)
                if not same_sequence or not same_graph or calls_ratio > 2:
                    ok = False
        m1 = statistics.median(walls[1])
        mj = statistics.median(walls[args.jobs])
        summary.append((name, m1, mj))
        print("%-13s N=%d: -j 1 median %.2f s, -j %d median %.2f s: %.2fx" % (
            name, args.n, m1, args.jobs, mj, m1 / mj), flush=True)
    if len(summary) > 1:
        print("-j %d --partitions against the default -j 1: %.2fx (target 3x)" % (
            args.jobs, summary[0][1] / summary[1][2]))
    if not args.work:
        shutil.rmtree(work, ignore_errors=True)
    print("PASS" if ok else "FAIL: a -j %d run left -j 1's sequence or graph, or issued more "
          "than 2x its calls" % args.jobs)
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
