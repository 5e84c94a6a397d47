#!/usr/bin/env python3
"""Capture from a real PyTorch program: reprokit_torch against PyTorch's own
minifier, the same models, the same planted Inductor bug, each from a cold start
(docs/PYTORCH.md, "Side by side"; figures go to docs/BENCHMARKS.md).

Models: mlp (8 Linear+ReLU layers), resnet18 (torchvision, eval), gpt2 (a
2-layer transformers GPT-2 with relu activations, eager attention, eval) and
train (the MLP's training step: forward, MSE loss, backward). The bug:
Inductor's `cpp.inject_relu_bug_TESTING_ONLY = "accuracy"` on cpu,
`triton.inject_relu_bug_TESTING_ONLY = "accuracy"` on cuda.

Per model, each flow in a fresh process (wall time from the process start):
  reprokit:  torch.compile(model, backend=reprokit_torch.backend("inductor",
             level="accuracy")) runs the model; the failing graph becomes a
             bundle judged by `reprokit check` with the torch_inductor backend;
             then `reprokit minify BUNDLE --backend torch_inductor -j J`, then
             `reprokit export MIN --standalone` and its repro.py run with torch
             alone (exit 1 while the bug is present).
  pytorch:   TORCHDYNAMO_REPRO_AFTER=aot TORCHDYNAMO_REPRO_LEVEL=4 and
             backend="inductor": the run writes minifier_launcher.py; then
             `python minifier_launcher.py` (its minify step) to a repro.py.
  fx:        torch._functorch.fx_minifier.minifier on the graph reprokit_torch
             captured, with an Inductor accuracy oracle (fx_minifier_compare.py's
             rule), in the capturing process after capture (not cold).
Each step has a time limit (--timeout); a failure is recorded with its last
error line. Output: a Markdown table (printed, OUT/torch_capture_compare.md)
and OUT/torch_capture_compare.json.

  torch_capture_compare.py --out DIR --reprokit /tmp/rk/reprokit [--device cuda]
      [--models mlp,resnet18,gpt2,train] [--jobs 4] [--timeout 150]
      [--skip-pytorch] [--skip-fx]

On the GPU machine (torch 2.11), with .device/ carried (tools/build_device_bundle.sh;
the binaries are unpacked to /tmp/rk when missing), within 9 minutes per call, e.g.
  /opt/torch/.venv/bin/python3 bench/torch_capture_compare.py --out $OUT/cap \\
      --reprokit /tmp/rk/reprokit --device cuda --models mlp,train
  ... --models resnet18,gpt2 --skip-fx
"""

import argparse
import glob
import json
import os
import re
import signal
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
MODELS = ("mlp", "resnet18", "gpt2", "train")


def bug_for(device):
    family = "triton" if device == "cuda" else "cpp"
    return {"%s.inject_relu_bug_TESTING_ONLY" % family: "accuracy"}


# ---------------------------------------------------------------------------
# In the child processes

def build(name, device):
    """(module, inputs, is_training)."""
    import torch
    import torch.nn as nn
    torch.manual_seed(0)
    if name in ("mlp", "train"):
        layers = []
        for _ in range(8):
            layers += [nn.Linear(256, 256), nn.ReLU()]
        model = nn.Sequential(*layers).to(device)
        return model, [torch.randn(64, 256, device=device)], name == "train"
    if name == "resnet18":
        import torchvision
        model = torchvision.models.resnet18(weights=None).eval().to(device)
        return model, [torch.randn(2, 3, 64, 64, device=device)], False
    if name == "gpt2":
        from transformers import GPT2Config, GPT2LMHeadModel
        config = GPT2Config(n_layer=2, n_head=4, n_embd=128, vocab_size=1000, n_positions=64,
                            activation_function="relu", resid_pdrop=0.0, embd_pdrop=0.0,
                            attn_pdrop=0.0, attn_implementation="eager")
        config._attn_implementation = "eager"
        lm = GPT2LMHeadModel(config).eval().to(device)

        class Logits(nn.Module):
            def __init__(self, m):
                super().__init__()
                self.m = m

            def forward(self, ids):
                return self.m(ids, use_cache=False).logits
        return Logits(lm), [torch.randint(0, 1000, (2, 32), device=device)], False
    raise ValueError("unknown model " + name)


def run_model(model, inputs, training, backend):
    import torch
    compiled = torch.compile(model, backend=backend)
    if training:
        out = compiled(*inputs)
        loss = torch.nn.functional.mse_loss(out, torch.zeros_like(out))
        loss.backward()
        return loss
    with torch.no_grad():
        return compiled(*inputs)


class StepTimeout(Exception):
    pass


def child_reprokit(args):
    """Capture with reprokit_torch, then minify; one JSON line on stdout."""
    t0 = time.monotonic()
    sys.path.insert(0, os.path.join(ROOT, "python"))
    import torch
    import torch._inductor.config as inductor_config
    import reprokit_torch
    bug = bug_for(args.device)
    for key, value in bug.items():
        section, name = key.split(".")
        setattr(getattr(inductor_config, section), name, value)
    model, inputs, training = build(args.child, args.device)
    out = os.path.join(args.work, "bugs")
    backend = reprokit_torch.backend("inductor", out=out, level="accuracy",
                                     reprokit=args.reprokit, reprokit_backend="torch_inductor",
                                     reprokit_backend_options=bug, pool=args.jobs)
    result = {"flow": "reprokit", "model": args.child}
    try:
        run_model(model, inputs, training, backend)
    except Exception as e:
        result["run_error"] = "%s: %s" % (type(e).__name__, str(e).splitlines()[0][:200])
    capture = backend.capture
    result["capture_seconds"] = time.monotonic() - t0
    result["bundles"] = [{"path": p, "torch_kind": k, "judged": _judged(p)} for p, k in
                         capture.saved]
    failing = [b for b in result["bundles"] if b["judged"] not in ("pass", None)]
    if not failing:
        result["error"] = "no bundle reproduces with the torch_inductor backend"
        print(json.dumps(result), flush=True)
        return 0
    bundle = failing[0]["path"]
    result["bundle_nodes"] = _nodes(os.path.join(bundle, "graph.rk"))
    minimized = bundle + ".min"
    # The pool the capture started (pool=J) is warm by now: minify uses it.
    env = dict(os.environ)
    started = time.monotonic()
    try:
        p = subprocess.run([args.reprokit, "minify", bundle, "-o", minimized, "--backend",
                            "torch_inductor", "--json", "-j", str(args.jobs)],
                           capture_output=True, text=True, env=env, timeout=args.timeout)
        stats = json.loads(p.stdout[p.stdout.index("{"):]) if "{" in p.stdout else {}
        result.update({"minify_seconds": time.monotonic() - started,
                       "oracle_calls": stats.get("oracle_calls"),
                       "final_nodes": (stats.get("final") or {}).get("compute_nodes"),
                       "signature": stats.get("signature")})
        if p.returncode != 0:
            result["error"] = "minify exited %d: %s" % (p.returncode, p.stderr.strip()[-300:])
    except subprocess.TimeoutExpired:
        result["error"] = "minify: over %d s" % args.timeout
    result["total_seconds"] = time.monotonic() - t0
    subprocess.run([args.reprokit, "backend-pool", "stop", "torch_inductor"],
                   capture_output=True, env=env)  # untimed: a user leaves it to stop idle
    if os.path.isdir(minimized):
        result["standalone"] = standalone(args, minimized, env)
    if not args.skip_fx and capture.failures:
        result["fx"] = run_fx_minifier(capture.failures[0], args.device, bug, args.timeout)
    print(json.dumps(result), flush=True)
    return 0


def standalone(args, bundle, env):
    """`reprokit export --standalone` of the minimal bundle and its repro.py run with
    torch alone: exit 1 while the bug is present."""
    out = bundle + ".standalone"
    started = time.monotonic()
    p = subprocess.run([args.reprokit, "export", bundle, "--standalone", out, "--target",
                        "torch_inductor"], capture_output=True, text=True, env=env)
    if p.returncode != 0:
        return {"error": "export exited %d: %s" % (p.returncode, p.stderr.strip()[-300:])}
    try:
        q = subprocess.run([sys.executable, "repro.py"], cwd=out, capture_output=True,
                           text=True, env=env, timeout=args.timeout)
    except subprocess.TimeoutExpired:
        return {"error": "repro.py: over %d s" % args.timeout}
    with open(os.path.join(out, "repro.py")) as f:
        text = f.read()
    return {"exit": q.returncode, "seconds": time.monotonic() - started,
            "repro_bytes": len(text), "last_line": (q.stdout.strip().splitlines() or [""])[-1]}


def _judged(path):
    try:
        with open(os.path.join(path, "repro.json")) as f:
            doc = json.load(f)
        return doc["expected"]["signature"] if doc["expected"].get("judged") else None
    except (OSError, ValueError, KeyError):
        return None


def _nodes(rk_path):
    try:
        with open(rk_path) as f:
            return sum(1 for line in f if re.match(r"\s*%\S+ = ", line))
    except OSError:
        return None


def run_fx_minifier(failure, device, bug, timeout):
    """fx_minifier_compare.py's oracle on the captured ATen graph, in this process."""
    import torch
    import torch._dynamo
    import torch._inductor.config as inductor_config
    from torch._dynamo.utils import same
    from torch._functorch.fx_minifier import minifier
    kind, gm, inputs = failure
    calls = [0]

    def module_fails(fx_g, inps):
        calls[0] += 1
        if not any(n.op == "call_function" for n in fx_g.graph.nodes):
            return False
        ref = fx_g(*inps)
        fp64 = fx_g(*[x.double() if x.is_floating_point() else x for x in inps])
        torch._dynamo.reset()
        with inductor_config.patch(bug):
            res = torch.compile(fx_g, backend="inductor", fullgraph=True, dynamic=False)(*inps)
        return not same(ref, res, fp64_ref=fp64, tol=1e-3, log_error=lambda *a, **k: None)

    def alarm(*_):
        raise StepTimeout()
    signal.signal(signal.SIGALRM, alarm)
    signal.alarm(int(timeout))
    started = time.monotonic()
    try:
        final = minifier(gm, inputs, module_fails, dump_state=lambda *a, **k: None)
        final = final[0] if isinstance(final, tuple) else final
        return {"graph": kind, "calls": calls[0], "seconds": time.monotonic() - started,
                "nodes": sum(1 for n in final.graph.nodes if n.op == "call_function")}
    except StepTimeout:
        return {"graph": kind, "calls": calls[0], "error": "over %d s" % timeout}
    except Exception as e:
        return {"graph": kind, "calls": calls[0],
                "error": "%s: %s" % (type(e).__name__, str(e).splitlines()[0][:200])}
    finally:
        signal.alarm(0)


def child_pytorch(args):
    """The user's run under TORCHDYNAMO_REPRO_AFTER=aot, LEVEL=4 (env set by the parent)."""
    import torch
    import torch._inductor.config as inductor_config
    for key, value in bug_for(args.device).items():
        section, name = key.split(".")
        setattr(getattr(inductor_config, section), name, value)
    model, inputs, training = build(args.child, args.device)
    run_model(model, inputs, training, "inductor")
    return 0


# ---------------------------------------------------------------------------
# In the parent

def run_child(argv, env, cwd, timeout):
    started = time.monotonic()
    try:
        p = subprocess.run([sys.executable, os.path.abspath(__file__)] + argv, cwd=cwd, env=env,
                           capture_output=True, text=True, timeout=timeout)
        return p, time.monotonic() - started
    except subprocess.TimeoutExpired as e:
        return e, time.monotonic() - started


def last_error(text):
    lines = [l for l in (text or "").strip().splitlines() if l.strip()]
    errors = [l for l in lines if re.match(r"^[\w.]+(Error|Exception|Failed)\b", l)]
    return (errors or lines or [""])[-1][:240]


def fresh_env(work):
    env = dict(os.environ)
    env["TORCHINDUCTOR_CACHE_DIR"] = os.path.join(work, "inductor-cache")
    env["TRITON_CACHE_DIR"] = os.path.join(work, "triton-cache")
    env["PYTHONUNBUFFERED"] = "1"
    env.setdefault("REPROKIT_ROOT", ROOT)
    # backends/torch_inductor/serve runs as `python3` from PATH: this interpreter's.
    env["PATH"] = os.path.dirname(sys.executable) + os.pathsep + env.get("PATH", "")
    return env


def flow_reprokit(model, args):
    work = os.path.join(args.out, model, "reprokit")
    os.makedirs(work, exist_ok=True)
    argv = ["--child", model, "--flow", "reprokit", "--work", work, "--device", args.device,
            "--reprokit", args.reprokit, "--jobs", str(args.jobs), "--timeout", str(args.timeout)]
    if args.skip_fx:
        argv.append("--skip-fx")
    env = fresh_env(work)
    # This flow's pool only, in a short folder (a Unix socket's path has 107 bytes).
    env["REPROKIT_BACKEND_POOL_DIR"] = tempfile.mkdtemp(prefix="rkpool-")
    p, seconds = run_child(argv, env, work, 3 * args.timeout)
    subprocess.run([args.reprokit, "backend-pool", "stop", "torch_inductor"], capture_output=True,
                   env=env)  # after a child that failed before stopping it
    if isinstance(p, subprocess.TimeoutExpired):
        return {"error": "over %d s" % (3 * args.timeout), "wall_seconds": seconds}
    lines = [l for l in p.stdout.splitlines() if l.startswith("{")]
    with open(os.path.join(work, "log.txt"), "w") as f:
        f.write(p.stdout + "\n--- stderr\n" + p.stderr)
    if not lines:
        return {"error": "exit %d: %s" % (p.returncode, last_error(p.stderr)),
                "wall_seconds": seconds}
    result = json.loads(lines[-1])
    # What the capturing backend said (a bundle saved, or why none could be).
    result["capture_log"] = [l[:400] for l in p.stderr.splitlines()
                             if l.startswith(("reprokit_torch:", "  "))][:40]
    # Cold start to minimal bundle: the capture process up to minify's end (the
    # standalone repro.py's verification and fx_minifier's run are not counted).
    result["wall_seconds"] = seconds - (result.get("fx", {}).get("seconds") or 0) - (
        result.get("standalone", {}).get("seconds") or 0)
    return result


def flow_pytorch(model, args):
    work = os.path.join(args.out, model, "pytorch")
    os.makedirs(work, exist_ok=True)
    env = fresh_env(work)
    env.update({"TORCHDYNAMO_REPRO_AFTER": "aot", "TORCHDYNAMO_REPRO_LEVEL": "4"})
    argv = ["--child", model, "--flow", "pytorch", "--work", work, "--device", args.device]
    p, run_seconds = run_child(argv, env, work, args.timeout)
    result = {"run_seconds": run_seconds}
    if isinstance(p, subprocess.TimeoutExpired):
        result["error"] = "the user's run: over %d s" % args.timeout
        return result
    with open(os.path.join(work, "run_log.txt"), "w") as f:
        f.write(p.stdout + "\n--- stderr\n" + p.stderr)
    result["run_exit"] = p.returncode
    result["run_last_error"] = last_error(p.stderr)
    launchers = sorted(glob.glob(os.path.join(work, "**", "minifier_launcher.py"), recursive=True),
                       key=os.path.getmtime)
    if not launchers:
        result["error"] = "no minifier_launcher.py written"
        result["wall_seconds"] = run_seconds
        return result
    launcher = launchers[-1]
    started = time.monotonic()
    started_wall = time.time()  # file times are wall-clock: compare them with this
    try:
        q = subprocess.run([sys.executable, launcher], cwd=os.path.dirname(launcher), env=env,
                           capture_output=True, text=True, timeout=args.timeout)
        result["launcher_exit"] = q.returncode
        result["launcher_last_error"] = last_error(q.stderr) if q.returncode else ""
        with open(os.path.join(work, "launcher_log.txt"), "w") as f:
            f.write(q.stdout + "\n--- stderr\n" + q.stderr)
        result["oracle_calls"] = len(re.findall(r"(?m)^.*(Trying granularity|Strategy:)",
                                                q.stdout + q.stderr)) or None
    except subprocess.TimeoutExpired:
        result["launcher_exit"] = None
        result["launcher_last_error"] = "over %d s" % args.timeout
    result["launcher_seconds"] = time.monotonic() - started
    result["wall_seconds"] = run_seconds + result["launcher_seconds"]
    repros = [r for r in glob.glob(os.path.join(work, "**", "repro.py"), recursive=True)
              if os.path.getmtime(r) >= started_wall - 1]
    if result.get("launcher_exit") != 0:
        # A repro.py of the user's run is the whole graph, not a minimized one.
        result["error"] = "minifier launcher failed: %s" % (
            result.get("launcher_last_error") or "exit %s" % result.get("launcher_exit"))
    elif repros:
        with open(sorted(repros, key=os.path.getmtime)[-1]) as f:
            text = f.read()
        result["final_nodes"] = len(re.findall(r"torch\.ops\.(aten|prims)\.", text))
        result["repro_bytes"] = len(text)
    else:
        result["error"] = "no repro.py: %s" % (result.get("launcher_last_error") or "none written")
    return result


def table(rows):
    out = ["| model | flow | cold start to minimal repro (reprokit: bundle) | oracle calls | nodes: start -> final | outcome |",
           "| --- | --- | --- | --- | --- | --- |"]
    for r in rows:
        rk, pt = r.get("reprokit"), r.get("pytorch")
        if rk:
            fx = rk.get("fx") or {}
            sa = rk.get("standalone") or {}
            out.append("| %s | reprokit_torch | %s | %s | %s -> %s | %s; standalone repro.py %s |" % (
                r["model"], _s(rk.get("wall_seconds")), rk.get("oracle_calls", "-"),
                rk.get("bundle_nodes", "-"), rk.get("final_nodes", "-"),
                rk.get("error") or rk.get("signature") or "ok",
                sa.get("error") or "exit %s, %s bytes (export and run: %s)" % (
                    sa.get("exit"), sa.get("repro_bytes"), _s(sa.get("seconds")))))
            if fx:
                out.append("| %s | fx_minifier (captured graph, warm) | %s | %s | %s -> %s | %s |" % (
                    r["model"], _s(fx.get("seconds")), fx.get("calls", "-"),
                    rk.get("bundle_nodes", "-"), fx.get("nodes", "-"), fx.get("error") or "ok"))
        if pt:
            out.append("| %s | PyTorch REPRO_AFTER=aot LEVEL=4 | %s (run %s + launcher %s) | %s | - -> %s | %s |" % (
                r["model"], _s(pt.get("wall_seconds")), _s(pt.get("run_seconds")),
                _s(pt.get("launcher_seconds")), pt.get("oracle_calls") or "-",
                pt.get("final_nodes", "-"), pt.get("error") or "repro.py written"))
    return "\n".join(out)


def _s(v):
    return "-" if v is None else "%.1f s" % v


def ensure_binaries(reprokit):
    """The device bundle's binaries unpacked to /tmp/rk, as tools/run_device_gpu.sh does."""
    if os.path.exists(reprokit):
        return
    device_dir = os.path.join(ROOT, ".device")
    for packed in glob.glob(os.path.join(device_dir, "*.xz")):
        target = os.path.join(os.path.dirname(reprokit), os.path.basename(packed)[:-3])
        os.makedirs(os.path.dirname(target), exist_ok=True)
        with open(target, "wb") as f:
            subprocess.run(["xz", "-dc", packed], stdout=f, check=True)
        os.chmod(target, 0o755)
    libdevice = os.path.join(device_dir, "libdevice.10.bc")
    if os.path.exists(libdevice):
        os.environ.setdefault("REPROKIT_LIBDEVICE", libdevice)
    if not os.path.exists(reprokit):
        sys.exit("torch_capture_compare: no %s and no .device/ to unpack it from "
                 "(tools/build_device_bundle.sh makes it)" % reprokit)


def main(argv):
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--out")
    p.add_argument("--reprokit", default="/tmp/rk/reprokit")
    p.add_argument("--device", default="cuda", choices=["cpu", "cuda"])
    p.add_argument("--models", default=",".join(MODELS))
    p.add_argument("--jobs", type=int, default=4)
    p.add_argument("--timeout", type=int, default=150, help="seconds per step")
    p.add_argument("--skip-pytorch", action="store_true")
    p.add_argument("--skip-reprokit", action="store_true")
    p.add_argument("--skip-fx", action="store_true")
    p.add_argument("--child", help=argparse.SUPPRESS)
    p.add_argument("--flow", help=argparse.SUPPRESS)
    p.add_argument("--work", help=argparse.SUPPRESS)
    args = p.parse_args(argv)
    if args.child:
        return child_reprokit(args) if args.flow == "reprokit" else child_pytorch(args)
    if not args.out:
        p.error("--out is required")
    args.out = os.path.abspath(args.out)
    os.makedirs(args.out, exist_ok=True)
    if not args.skip_reprokit:
        ensure_binaries(args.reprokit)
    rows = []
    for model in args.models.split(","):
        if model not in MODELS:
            p.error("unknown model %s (expected %s)" % (model, ", ".join(MODELS)))
        row = {"model": model, "device": args.device}
        if not args.skip_reprokit:
            row["reprokit"] = flow_reprokit(model, args)
        if not args.skip_pytorch:
            row["pytorch"] = flow_pytorch(model, args)
        rows.append(row)
        print(json.dumps(row), flush=True)
    text = table(rows)
    print(text)
    with open(os.path.join(args.out, "torch_capture_compare.md"), "w") as f:
        f.write(text + "\n")
    with open(os.path.join(args.out, "torch_capture_compare.json"), "w") as f:
        json.dump(rows, f, indent=2)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
