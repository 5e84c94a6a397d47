#!/usr/bin/env python3
"""PyTorch's fx_minifier against `reprokit minify` on the same graphs, the same
planted Inductor bug and an fp64-judged oracle (docs/BACKENDS.md, "fx_minifier
comparison"; figures in docs/BENCHMARKS.md).

For each N and seed: a random DAG of N elementwise f32 nodes on [64,64] with 4
inputs (operands mostly from the last 8 values, one relu in the middle, every
dead end an output), deterministic per seed, written as G.rk and built as a
torch.fx GraphModule (make_fx, aten level). Then

  fx_minifier: torch._functorch.fx_minifier.minifier with an Inductor accuracy
    oracle: the candidate compiled by torch.compile(backend="inductor") under
    cpp.inject_relu_bug_TESTING_ONLY="accuracy" (triton.* on cuda), judged
    against the eager native run and the fp64 eager run by
    torch._dynamo.utils.same (PyTorch's accuracy minifier's check, tol 1e-3);
  reprokit: `reprokit capture G.rk --backend torch_inductor --opt <the bug>
    -o B` then `reprokit minify B -o B.min --json` (calls and seconds from the
    statistics).

Oracle calls, wall time and final node count of each go into a Markdown table
(printed and written to OUT/fx_minifier_compare.md).

  fx_minifier_compare.py --out DIR [--sizes 50,200,1000] [--seeds 1,2]
      [--device cpu|cuda] [--reprokit PATH] [--jobs N[,N...]] [--pool | --e2e]
      [--skip-fx] [--skip-reprokit] [--dry] [--table-only]

--e2e measures what a user waits for, from the command typed to the minimal
bundle, both tools cold (fresh Inductor and Triton caches for each graph and
tool): fx_minifier as a Python process of its own (import torch, make_fx, the
minifier; its minifier() time is reported too), reprokit as
`reprokit capture G.rk --backend torch_inductor --pool J ... -o B` (the check
that splits miscompile from precision deferred, the pool of J processes
started by capture and warming up while it compiles) followed by
`reprokit minify B -o B.min -j J`; the pool is stopped afterwards, untimed.
The table gives the ratio fx_minifier / reprokit of both.

Each row is also written to DIR/rows/, and the table is made of every row
there: runs of one seed each into the same DIR (to keep each call short) add
up to one table; --table-only prints it without running anything.

--pool starts `reprokit backend-pool start torch_inductor -j N --warm DEVICE`
for each graph (with that graph's fresh caches) before capture and stops it
after minify; its start-up (import torch, and each process's first compile on
the device) is reported apart, as fx_minifier's import of torch is not timed.

--dry writes only the .rk files and the fx code (DIR/N<n>_s<seed>.{rk,py}); it
needs no torch.
"""

import argparse
import json
import os
import shutil
import random
import subprocess
import sys
import tempfile
import time

SHAPE = (64, 64)
INPUTS = 4
BINARY = ("add", "sub", "mul", "maximum", "minimum")
UNARY = ("neg", "tanh", "sigmoid", "sin", "cos")
BOUND = 1e4  # keep every value's magnitude below this, so nothing overflows


class Dag:
    """nodes: (name, op, operand indices); values 0..3 are the inputs."""

    def __init__(self, n, seed):
        rng = random.Random("fx_minifier_compare/%d/%d" % (n, seed))
        self.nodes = []
        bound = [2.0] * INPUTS  # inputs are uniform in [-2, 2)
        count = INPUTS
        relu_at = n // 2
        for i in range(n):
            def pick():
                if rng.random() < 0.9:
                    return rng.randrange(max(0, count - 8), count)
                return rng.randrange(count)
            if i == relu_at:
                op, operands, b = "relu", [count - 1], bound[count - 1]
            elif rng.random() < 0.6:
                op = rng.choice(BINARY)
                operands = [pick(), pick()]
                b0, b1 = bound[operands[0]], bound[operands[1]]
                b = b0 * b1 if op == "mul" else (b0 + b1 if op in ("add", "sub") else max(b0, b1))
                if b > BOUND:
                    op, operands, b = "tanh", [operands[0]], 1.0
            else:
                op = rng.choice(UNARY)
                operands = [pick()]
                b = bound[operands[0]] if op == "neg" else 1.0
            self.nodes.append(("v%d" % count, op, operands))
            bound.append(b)
            count += 1
        used = {o for _, _, ops in self.nodes for o in ops}
        self.outputs = [INPUTS + i for i in range(n) if INPUTS + i not in used]

    def name(self, value):
        return "x%d" % value if value < INPUTS else self.nodes[value - INPUTS][0]

    def rk(self, graph_name):
        t = "f32[%d,%d]" % SHAPE
        params = ", ".join("%%x%d: %s" % (i, t) for i in range(INPUTS))
        lines = ["// %d elementwise nodes, one relu, %d outputs (bench/fx_minifier_compare.py)"
                 % (len(self.nodes), len(self.outputs)),
                 "graph @%s(%s) {" % (graph_name, params)]
        for name, op, operands in self.nodes:
            args = ", ".join("%" + self.name(o) for o in operands)
            lines.append("  %%%s = %s(%s) : %s" % (name, op, args, t))
        lines.append("  return " + ", ".join("%" + self.name(o) for o in self.outputs))
        lines.append("}")
        return "\n".join(lines) + "\n"

    def python(self):
        """The function make_fx traces, as source (also written by --dry)."""
        torch_ops = {"add": "torch.add", "sub": "torch.sub", "mul": "torch.mul",
                     "maximum": "torch.maximum", "minimum": "torch.minimum", "neg": "torch.neg",
                     "tanh": "torch.tanh", "sigmoid": "torch.sigmoid", "sin": "torch.sin",
                     "cos": "torch.cos", "relu": "torch.relu"}
        lines = ["def dag(%s):" % ", ".join("x%d" % i for i in range(INPUTS))]
        for name, op, operands in self.nodes:
            lines.append("    %s = %s(%s)" % (name, torch_ops[op],
                                              ", ".join(self.name(o) for o in operands)))
        lines.append("    return (%s,)" % ", ".join(self.name(o) for o in self.outputs))
        return "\n".join(lines) + "\n"


def inputs_for(seed, torch, device):
    g = torch.Generator().manual_seed(seed)
    return [(torch.rand(SHAPE, generator=g) * 4 - 2).to(device) for _ in range(INPUTS)]


def count_compute_nodes(gm):
    return sum(1 for n in gm.graph.nodes if n.op == "call_function")


def run_fx_minifier(dag, seed, device, bug):
    import torch
    import torch._dynamo
    import torch._inductor.config as inductor_config
    from torch._dynamo.utils import same
    from torch._functorch.fx_minifier import minifier
    from torch.fx.experimental.proxy_tensor import make_fx

    namespace = {"torch": torch}
    exec(dag.python(), namespace)
    inps = inputs_for(seed, torch, device)
    gm = make_fx(namespace["dag"])(*inps)
    calls = [0]
    first_query = []  # seconds of the first query: the whole graph compiled and judged

    def module_fails(fx_g, inps):
        calls[0] += 1
        if not any(n.op == "call_function" for n in fx_g.graph.nodes):
            return False
        query_started = time.monotonic()
        ref = fx_g(*inps)
        fp64 = fx_g(*[x.double() for x in inps])
        torch._dynamo.reset()
        with inductor_config.patch(bug):
            compiled = torch.compile(fx_g, backend="inductor", fullgraph=True, dynamic=False)
            res = compiled(*inps)
        failed = not same(ref, res, fp64_ref=fp64, tol=1e-3, log_error=lambda *a, **k: None)
        if not first_query:
            first_query.append(time.monotonic() - query_started)
        return failed

    started = time.monotonic()
    result = minifier(gm, inps, module_fails, dump_state=lambda *a, **k: None)
    seconds = time.monotonic() - started
    final = result[0] if isinstance(result, tuple) else result
    ops = sorted({str(n.target) for n in final.graph.nodes if n.op == "call_function"})
    return {"calls": calls[0], "seconds": seconds, "nodes": count_compute_nodes(final),
            "ops": ops, "first_query_seconds": first_query[0] if first_query else None}


def run_fx_process(n, seed, device, work):
    """fx_minifier end to end: a Python process of its own (import torch,
    make_fx, the minifier) with fresh Inductor and Triton caches; its wall
    time and the minifier's own figures."""
    env = dict(os.environ)
    env["TORCHINDUCTOR_CACHE_DIR"] = os.path.join(work, "fx-inductor-cache")
    env["TRITON_CACHE_DIR"] = os.path.join(work, "fx-triton-cache")
    started = time.monotonic()
    p = subprocess.run([sys.executable, os.path.abspath(__file__), "--fx-one", str(n), str(seed),
                        "--device", device, "--out", work], capture_output=True, text=True,
                       env=env)
    wall = time.monotonic() - started
    if p.returncode != 0:
        return {"error": "fx_minifier process exited %d: %s" % (p.returncode,
                                                                p.stderr.strip()[-400:])}
    lines = [line for line in p.stdout.splitlines() if line.startswith("{")]
    if not lines:
        return {"error": "fx_minifier process printed no result: %s" % p.stdout[-400:]}
    result = json.loads(lines[-1])
    result["e2e_seconds"] = wall
    return result


def run_reprokit_e2e(reprokit, rk_path, work, device, bug, jobs, backend="torch_inductor"):
    """`capture --pool J` then `minify -j J`, timed together from a cold start."""
    bundle = os.path.join(work, "bundle")
    minimized = os.path.join(work, "bundle.min")
    env = dict(os.environ)
    env["TORCHINDUCTOR_CACHE_DIR"] = os.path.join(work, "inductor-cache")
    env["TRITON_CACHE_DIR"] = os.path.join(work, "triton-cache")
    env["REPROKIT_BACKEND_POOL"] = "auto"
    # This run's pool only, in a short folder (a Unix socket's path has 107 bytes).
    env["REPROKIT_BACKEND_POOL_DIR"] = tempfile.mkdtemp(prefix="rkpool-")
    opts = []
    for key, value in bug.items():
        opts += ["--opt", "%s=%s" % (key, value)]
    started = time.monotonic()
    try:
        p = subprocess.run([reprokit, "capture", rk_path, "--backend", backend,
                            "--device", device, "--pool", str(jobs), "--timeout", "300",
                            "-o", bundle] + opts,
                           capture_output=True, text=True, env=env)
        capture_seconds = time.monotonic() - started
        if p.returncode != 0:
            return {"error": "capture exited %d: %s" % (p.returncode, p.stderr.strip()[-400:])}
        # The backend's compile of the whole graph inside capture (the rest:
        # the pool's first process starting and warming up, the references).
        with open(os.path.join(bundle, "repro.json")) as f:
            timings = json.load(f)["expected"].get("timings", {})
        minify_started = time.monotonic()
        p = subprocess.run([reprokit, "minify", bundle, "-o", minimized, "--json", "-j",
                            str(jobs)], capture_output=True, text=True, env=env)
        ended = time.monotonic()
    finally:
        subprocess.run([reprokit, "backend-pool", "stop", backend], capture_output=True,
                       env=env)
        shutil.rmtree(env["REPROKIT_BACKEND_POOL_DIR"], ignore_errors=True)
    try:
        stats = json.loads(p.stdout[p.stdout.index("{"):])
    except ValueError:
        return {"error": "minify exited %d: %s" % (p.returncode, p.stderr.strip()[-400:])}
    final = stats.get("final", {})
    return {"calls": stats.get("oracle_calls"), "calls_used": stats.get("oracle_calls_used"),
            "seconds": ended - minify_started, "minify_seconds": stats.get("seconds"),
            "capture_seconds": capture_seconds, "e2e_seconds": ended - started,
            "capture_compile_seconds": timings.get("compile_seconds"),
            "nodes": final.get("compute_nodes"), "one_minimal": stats.get("one_minimal"),
            "signature": stats.get("signature"), "jobs": jobs,
            "precision_check_resolved": stats.get("precision_check_resolved")}


def start_pool(reprokit, env, jobs, device):
    """A warm pool for capture and minify (docs/BACKENDS.md, "A warm pool"): every
    process started and warmed up on `device`; its seconds."""
    started = time.monotonic()
    p = subprocess.run([reprokit, "backend-pool", "start", "torch_inductor", "-j", str(jobs),
                        "--idle", "900", "--warm", device], capture_output=True, text=True,
                       env=env)
    if p.returncode != 0:
        raise RuntimeError("backend-pool start exited %d: %s" % (p.returncode, p.stderr[-400:]))
    return time.monotonic() - started


def run_reprokit(reprokit, rk_path, work, device, bug, jobs=1, pool=False):
    bundle = os.path.join(work, "bundle")
    minimized = os.path.join(work, "bundle.min")
    opts = []
    for key, value in bug.items():
        opts += ["--opt", "%s=%s" % (key, value)]
    capture = [reprokit, "capture", rk_path, "--backend", "torch_inductor", "--device", device,
               "-o", bundle] + opts
    started = time.monotonic()
    env = dict(os.environ)
    # Inductor's and Triton's on-disk caches of this run only: nothing
    # compiled for fx_minifier (or an earlier graph) is reused.
    env["TORCHINDUCTOR_CACHE_DIR"] = os.path.join(work, "inductor-cache")
    env["TRITON_CACHE_DIR"] = os.path.join(work, "triton-cache")
    pool_seconds = None
    if pool:
        env["REPROKIT_BACKEND_POOL"] = "auto"
        pool_seconds = start_pool(reprokit, env, jobs, device)
        started = time.monotonic()
    else:
        env["REPROKIT_BACKEND_POOL"] = "off"
    p = subprocess.run(capture, capture_output=True, text=True, env=env)
    capture_seconds = time.monotonic() - started
    if p.returncode not in (0, 1):
        return {"error": "capture exited %d: %s" % (p.returncode, p.stderr.strip()[-400:])}
    started = time.monotonic()
    p = subprocess.run([reprokit, "minify", bundle, "-o", minimized, "--json", "-j", str(jobs)],
                       capture_output=True, text=True, env=env)
    seconds = time.monotonic() - started
    if pool:
        subprocess.run([reprokit, "backend-pool", "stop", "torch_inductor"], capture_output=True,
                       env=env)
    try:
        stats = json.loads(p.stdout[p.stdout.index("{"):])
    except ValueError:
        return {"error": "minify exited %d: %s" % (p.returncode, p.stderr.strip()[-400:])}
    final = stats.get("final", {})
    return {"calls": stats.get("oracle_calls"), "calls_used": stats.get("oracle_calls_used"),
            "seconds": seconds,
            "minify_seconds": stats.get("seconds"), "capture_seconds": capture_seconds,
            "nodes": final.get("compute_nodes"), "one_minimal": stats.get("one_minimal"),
            "signature": stats.get("signature"), "jobs": jobs, "pool_start_seconds": pool_seconds}


def bug_for(device):
    family = "triton" if device == "cuda" else "cpp"
    return {"%s.inject_relu_bug_TESTING_ONLY" % family: "accuracy"}


def fx_one(n, seed, device):
    """--fx-one: fx_minifier on one graph in this process; one JSON line."""
    result = run_fx_minifier(Dag(n, seed), seed, device, bug_for(device))
    print(json.dumps(result), flush=True)
    return 0


def cells(r, fields):
    """Table cells of a result: `fields` are (key, format) pairs."""
    if r is None:
        return ["-"] * len(fields)
    if "error" in r:
        return ["error"] + ["-"] * (len(fields) - 1)
    out = []
    for key, fmt in fields:
        value = r.get(key)
        out.append("-" if value is None else fmt % value)
    return out


def ratio(a, b):
    return "**%.1fx**" % (a / b) if a and b else "-"


def table(rows):
    """The Markdown table of `rows` (end-to-end rows when any has e2e figures)."""
    e2e = any(row.get("mode") == "e2e" for row in rows)
    if e2e:
        text = ["| N | seed | fx_minifier calls | fx first query s | fx_minifier() s | "
                "fx_minifier process s | fx final nodes | reprokit -j | "
                "reprokit calls issued (used) | capture s (whole-graph compile) | "
                "minify s | reprokit end to end s | reprokit final nodes | "
                "fx process / reprokit | fx_minifier() / reprokit |",
                "|" + " ---: |" * 15]
    else:
        text = ["| N | seed | fx_minifier calls | fx_minifier s | fx_minifier final nodes | "
                "reprokit -j | reprokit calls issued (used) | reprokit minify s | "
                "reprokit final nodes | capture s |",
                "|" + " ---: |" * 10]
    for row in rows:
        fx, rk = row.get("fx"), row.get("reprokit")
        if e2e:
            c = (cells(fx, [("calls", "%s"), ("first_query_seconds", "%.1f"),
                            ("seconds", "%.1f"), ("e2e_seconds", "%.1f"), ("nodes", "%s")]) +
                 cells(rk, [("jobs", "%s"), ("calls", "%s"), ("capture_seconds", "%.1f"),
                            ("seconds", "%.1f"), ("e2e_seconds", "%.1f"), ("nodes", "%s")]))
            if rk and "error" not in rk:
                c[6] = "%s (%s)" % (rk.get("calls"), rk.get("calls_used"))
                if rk.get("capture_compile_seconds") is not None:
                    c[7] += " (%.1f)" % rk["capture_compile_seconds"]
            ok = fx and rk and "error" not in fx and "error" not in rk
            c += [ratio(fx.get("e2e_seconds"), rk.get("e2e_seconds")) if ok else "-",
                  ratio(fx.get("seconds"), rk.get("e2e_seconds")) if ok else "-"]
        else:
            c = (cells(fx, [("calls", "%s"), ("seconds", "%.1f"), ("nodes", "%s")]) +
                 cells(rk, [("jobs", "%s"), ("calls", "%s"), ("seconds", "%.1f"),
                            ("nodes", "%s"), ("capture_seconds", "%.1f")]))
            if rk and "error" not in rk:
                c[4] = "%s (%s)" % (rk.get("calls"), rk.get("calls_used"))
        text.append("| %d | %d | %s |" % (row["n"], row["seed"], " | ".join(c)))
    if e2e:
        text.append("")
        for n in sorted({row["n"] for row in rows}):
            pairs = [(row["fx"], row["reprokit"]) for row in rows if row["n"] == n and
                     row.get("fx") and row.get("reprokit") and "error" not in row["fx"] and
                     "error" not in row["reprokit"]]
            if not pairs:
                continue
            fx_e2e = sorted(fx["e2e_seconds"] for fx, _ in pairs)
            fx_min = sorted(fx["seconds"] for fx, _ in pairs)
            rk = sorted(r["e2e_seconds"] for _, r in pairs)
            median = lambda v: v[len(v) // 2] if len(v) % 2 else (v[len(v) // 2 - 1] +
                                                                   v[len(v) // 2]) / 2
            text.append("N=%d, %d runs, medians: fx_minifier process %.1f s, fx_minifier() "
                        "%.1f s, reprokit end to end %.1f s: %.2fx and %.2fx (target 5x)"
                        % (n, len(pairs), median(fx_e2e), median(fx_min), median(rk),
                           median(fx_e2e) / median(rk), median(fx_min) / median(rk)))
    return "\n".join(text) + "\n"


def saved_rows(out):
    folder = os.path.join(out, "rows")
    if not os.path.isdir(folder):
        return []
    rows = []
    for name in os.listdir(folder):
        with open(os.path.join(folder, name)) as f:
            rows.append(json.load(f))
    rows.sort(key=lambda r: (r["n"], r["seed"], (r.get("reprokit") or {}).get("jobs") or 0))
    return rows


def write_table(out):
    """Prints and writes the table of every saved row; 1 when a row has an error."""
    rows = saved_rows(out)
    text = table(rows)
    print(text)
    with open(os.path.join(out, "fx_minifier_compare.md"), "w") as f:
        f.write(text)
    with open(os.path.join(out, "fx_minifier_compare.json"), "w") as f:
        json.dump(rows, f, indent=1)
    errors = [r for r in rows if any("error" in (r.get(t) or {}) for t in ("fx", "reprokit"))]
    for r in errors:
        print("error in N=%d seed %d: %s" % (r["n"], r["seed"], json.dumps(r)[:600]),
              file=sys.stderr)
    return 1 if errors else 0


def main(argv):
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--out", required=True)
    p.add_argument("--sizes", default="50,200,1000")
    p.add_argument("--seeds", default="1,2")
    p.add_argument("--device", default="cpu", choices=["cpu", "cuda"])
    p.add_argument("--reprokit", default=None, help="the reprokit binary")
    p.add_argument("--jobs", default="1",
                   help="reprokit minify -j; a list (1,8) runs reprokit once per value, each "
                        "with its own fresh caches, pool and capture")
    mode = p.add_mutually_exclusive_group()
    mode.add_argument("--pool", action="store_true",
                      help="start a warm backend pool (-j processes) per graph before capture; "
                           "its start-up is reported apart, like fx_minifier's import of torch")
    mode.add_argument("--e2e", action="store_true",
                      help="end to end from the typed command, both tools cold (see above)")
    p.add_argument("--skip-fx", action="store_true")
    p.add_argument("--skip-reprokit", action="store_true")
    p.add_argument("--backend", default="torch_inductor",
                   help="--e2e: reprokit's backend; `reprokit` (the built-in compiler behind the "
                        "protocol, with its planted relu fault) runs without torch, with --skip-fx")
    p.add_argument("--dry", action="store_true", help="write the .rk and fx code only")
    p.add_argument("--table-only", action="store_true",
                   help="print the table of the rows in DIR/rows; run nothing")
    p.add_argument("--fx-one", nargs=2, type=int, metavar=("N", "SEED"), help=argparse.SUPPRESS)
    args = p.parse_args(argv)
    if args.fx_one:
        return fx_one(args.fx_one[0], args.fx_one[1], args.device)
    os.makedirs(args.out, exist_ok=True)
    if args.table_only:
        return write_table(args.out)
    if not args.e2e:
        # fx_minifier's Inductor and Triton caches: its own, fresh (set
        # before torch is imported); each reprokit run gets its own.
        for var, name in (("TORCHINDUCTOR_CACHE_DIR", "fx-inductor-cache"),
                          ("TRITON_CACHE_DIR", "fx-triton-cache")):
            if var not in os.environ:
                os.environ[var] = os.path.join(os.path.abspath(args.out), name)
                shutil.rmtree(os.environ[var], ignore_errors=True)
    sizes = [int(s) for s in args.sizes.split(",")]
    seeds = [int(s) for s in args.seeds.split(",")]
    bug = bug_for(args.device)
    if args.backend != "torch_inductor" and not (args.e2e and args.skip_fx):
        p.error("--backend other than torch_inductor needs --e2e and --skip-fx")
    if args.backend == "reprokit":
        bug = {"faults": "relu:accuracy"}
    os.makedirs(os.path.join(args.out, "rows"), exist_ok=True)
    written = 0
    for n in sizes:
        for seed in seeds:
            dag = Dag(n, seed)
            stem = "N%d_s%d" % (n, seed)
            rk_path = os.path.abspath(os.path.join(args.out, stem + ".rk"))
            with open(rk_path, "w") as f:
                f.write(dag.rk(stem))
            with open(os.path.join(args.out, stem + ".py"), "w") as f:
                f.write(dag.python())
            written += 1
            if args.dry:
                continue
            fx = None
            if not args.skip_fx:
                if args.e2e:
                    work = os.path.abspath(os.path.join(args.out, stem + ".fx"))
                    shutil.rmtree(work, ignore_errors=True)
                    os.makedirs(work)
                    fx = run_fx_process(n, seed, args.device, work)
                else:
                    fx = run_fx_minifier(dag, seed, args.device, bug)
            job_counts = [] if args.skip_reprokit else [int(j) for j in str(args.jobs).split(",")]
            for jobs in job_counts or [0]:
                row = {"n": n, "seed": seed, "outputs": len(dag.outputs), "fx": fx,
                       "mode": "e2e" if args.e2e else "minify"}
                if jobs == 0:
                    pass
                elif not args.reprokit:
                    row["reprokit"] = {"error": "no --reprokit given"}
                else:
                    # Cold every time: a rerun into the same --out must not
                    # find the last run's Inductor and Triton caches.
                    work = os.path.abspath(os.path.join(args.out, stem + ".work"))
                    shutil.rmtree(work, ignore_errors=True)
                    os.makedirs(work)
                    if args.e2e:
                        row["reprokit"] = run_reprokit_e2e(args.reprokit, rk_path, work,
                                                           args.device, bug, jobs, args.backend)
                    else:
                        row["reprokit"] = run_reprokit(args.reprokit, rk_path, work, args.device,
                                                       bug, jobs, args.pool)
                print(json.dumps(row), flush=True)
                with open(os.path.join(args.out, "rows", "%s_j%d.json" % (stem, jobs)), "w") as f:
                    json.dump(row, f, indent=1)
    if args.dry:
        print("wrote %d graphs to %s" % (written, args.out))
        return 0
    return write_table(args.out)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
