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
      [--device cpu|cuda] [--reprokit PATH] [--jobs N[,N...]] [--pool] [--skip-fx]
      [--skip-reprokit] [--dry]

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

    def module_fails(fx_g, inps):
        calls[0] += 1
        if not any(n.op == "call_function" for n in fx_g.graph.nodes):
            return False
        ref = fx_g(*inps)
        fp64 = fx_g(*[x.double() for x in inps])
        torch._dynamo.reset()
        with inductor_config.patch(bug):
            compiled = torch.compile(fx_g, backend="inductor", fullgraph=True, dynamic=False)
            res = compiled(*inps)
        return not same(ref, res, fp64_ref=fp64, tol=1e-3, log_error=lambda *a, **k: None)

    started = time.monotonic()
    result = minifier(gm, inps, module_fails, dump_state=lambda *a, **k: None)
    seconds = time.monotonic() - started
    final = result[0] if isinstance(result, tuple) else result
    ops = sorted({str(n.target) for n in final.graph.nodes if n.op == "call_function"})
    return {"calls": calls[0], "seconds": seconds, "nodes": count_compute_nodes(final),
            "ops": ops}


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
    p.add_argument("--pool", action="store_true",
                   help="start a warm backend pool (-j processes) per graph before capture; "
                        "its start-up is reported apart, like fx_minifier's import of torch")
    p.add_argument("--skip-fx", action="store_true")
    p.add_argument("--skip-reprokit", action="store_true")
    p.add_argument("--dry", action="store_true", help="write the .rk and fx code only")
    args = p.parse_args(argv)
    os.makedirs(args.out, exist_ok=True)
    # fx_minifier's Inductor and Triton caches: its own, fresh (set before
    # torch is imported); each reprokit run gets its own (run_reprokit).
    for var, name in (("TORCHINDUCTOR_CACHE_DIR", "fx-inductor-cache"),
                      ("TRITON_CACHE_DIR", "fx-triton-cache")):
        if var not in os.environ:
            os.environ[var] = os.path.join(os.path.abspath(args.out), name)
            shutil.rmtree(os.environ[var], ignore_errors=True)
    sizes = [int(s) for s in args.sizes.split(",")]
    seeds = [int(s) for s in args.seeds.split(",")]
    family = "triton" if args.device == "cuda" else "cpp"
    bug = {"%s.inject_relu_bug_TESTING_ONLY" % family: "accuracy"}
    rows = []
    for n in sizes:
        for seed in seeds:
            dag = Dag(n, seed)
            stem = "N%d_s%d" % (n, seed)
            rk_path = os.path.join(args.out, stem + ".rk")
            with open(rk_path, "w") as f:
                f.write(dag.rk(stem))
            with open(os.path.join(args.out, stem + ".py"), "w") as f:
                f.write(dag.python())
            row = {"n": n, "seed": seed, "outputs": len(dag.outputs)}
            if not args.dry and not args.skip_fx:
                row["fx"] = run_fx_minifier(dag, seed, args.device, bug)
            job_counts = [int(j) for j in str(args.jobs).split(",")]
            if args.dry or args.skip_reprokit:
                job_counts = []
                rows.append(row)
                print(json.dumps(row), flush=True)
            for jobs in job_counts:
                if not args.reprokit:
                    row["reprokit"] = {"error": "no --reprokit given"}
                else:
                    # Cold every time: a rerun into the same --out must not
                    # find the last run's Inductor and Triton caches.
                    work = os.path.join(args.out, stem + ".work")
                    shutil.rmtree(work, ignore_errors=True)
                    os.makedirs(work)
                    row["reprokit"] = run_reprokit(args.reprokit, rk_path, work, args.device, bug,
                                                   jobs, args.pool)
                rows.append(row)
                print(json.dumps(row), flush=True)
                row = {"n": n, "seed": seed, "outputs": len(dag.outputs)}
    if args.dry:
        print("wrote %d graphs to %s" % (len(rows), args.out))
        return 0
    table = ["| N | seed | fx_minifier calls | fx_minifier s | fx_minifier final nodes | "
             "reprokit -j | reprokit calls issued (used) | reprokit minify s | "
             "reprokit final nodes | capture s |",
             "| ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |"]

    def cells(r, n):
        if r is None:
            return ["-"] * n
        if "error" in r:
            return ["error"] + ["-"] * (n - 1)
        if n == 3:
            return [str(r["calls"]), "%.1f" % r["seconds"], str(r["nodes"])]
        return [str(r["jobs"]), "%s (%s)" % (r["calls"], r.get("calls_used")),
                "%.1f" % r["seconds"], str(r["nodes"]), "%.1f" % r["capture_seconds"]]

    for row in rows:
        table.append("| %d | %d | %s |" % (row["n"], row["seed"], " | ".join(
            cells(row.get("fx"), 3) + cells(row.get("reprokit"), 5))))
    text = "\n".join(table) + "\n"
    print(text)
    with open(os.path.join(args.out, "fx_minifier_compare.md"), "w") as f:
        f.write(text)
    with open(os.path.join(args.out, "fx_minifier_compare.json"), "w") as f:
        json.dump(rows, f, indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
