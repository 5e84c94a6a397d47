#!/usr/bin/env python3
"""Real models on the GPU: reprokit's compile time and steady-state run time beside
PyTorch Inductor's (torch.compile, default mode) and ONNX Runtime's, batch 1, random
weights (nothing is downloaded).

Per model, in a child process of its own (a per-model timeout; a model that fails is
recorded and the next one runs):
  1. build it (torchvision / timm / transformers classes, random weights, eval mode)
     and export ONNX (torch.onnx.export's default exporter as testing/onnx/zoo/build_zoo.py
     uses it; the TorchScript one if that fails, or with --exporter legacy);
  2. ours: `reprokit check MODEL.onnx --device D --repeat N --warmup K --json`, with empty
     kernel and driver JIT caches: "compile s" is the judged (first) compile, "ms" the
     median of the N steady-state runs (GPU time between CUDA events, the inputs on the
     device; docs/WORKFLOWS.md "Time the compiled program");
  3. ONNX Runtime: CUDAExecutionProvider with the inputs and outputs bound on the device
     when the installed build has it, else the CPU provider, for information (said so);
     wall time between device synchronizations;
  4. Inductor: torch.compile(model) with empty caches; "compile s" is its first call,
     "ms" the median of N runs, each between two CUDA events after a synchronization.
Both sides run K untimed runs first. ours/inductor is the ratio of the medians. torch's
defaults run cuDNN convolutions in TF32 (ours computes f32 in f32): --tf32 off turns TF32
off for Inductor and ONNX Runtime's CUDA provider; the JSON records the setting.

  gpu_models_compare.py --out DIR [--models a,b] [--repeat 50] [--warmup 5]
                        [--device cuda|cpu] [--timeout S] [--budget S] [--exporter dynamo|legacy]
                        [--tf32 default|off] [--reprokit PATH] [--dry-run]

Writes DIR/gpu_models.json (every figure, the per-run times' summaries, errors) and
DIR/gpu_models.md (the table), and prints the table. Exit 0 when every model has our
steady-state time, 1 otherwise, 2 for bad arguments. The reprokit binary: --reprokit,
else $REPROKIT, else .device/reprokit.xz (tools/build_device_bundle.sh) unpacked anew under /tmp/rk,
else bazel-bin/tools/reprokit. --dry-run prints the plan and writes the table without
running anything.
"""
import argparse
import inspect
import json
import os
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)

# name -> (label, builder); builders return (model, example args as CPU tensors, config).
MODELS = {}
DEFAULT_MODELS = ("convnext_tiny", "deit_tiny", "resnet18", "distilbert", "efficientnet_b0")


def model(name, label):
    def register(fn):
        MODELS[name] = (label, fn)
        return fn
    return register


def _image(size=224):
    import torch
    return (torch.randn(1, 3, size, size),)


@model("resnet18", "ResNet-18")
def _():
    import torchvision
    return torchvision.models.resnet18(weights=None), _image(), "torchvision resnet18, 224x224"


@model("convnext_tiny", "ConvNeXt-T")
def _():
    import torchvision
    return torchvision.models.convnext_tiny(weights=None), _image(), "torchvision convnext_tiny, 224x224"


@model("efficientnet_b0", "EfficientNet-B0")
def _():
    import torchvision
    return torchvision.models.efficientnet_b0(weights=None), _image(), "torchvision efficientnet_b0, 224x224"


@model("mobilenet_v2", "MobileNetV2")
def _():
    import torchvision
    return torchvision.models.mobilenet_v2(weights=None), _image(), "torchvision mobilenet_v2, 224x224"


@model("deit_tiny", "DeiT-Tiny")
def _():
    import timm
    return (timm.create_model("deit_tiny_patch16_224", pretrained=False), _image(),
            "timm deit_tiny_patch16_224, 224x224")


@model("distilbert", "DistilBERT")
def _():
    import torch
    import transformers

    class Encoder(torch.nn.Module):
        def __init__(self, m):
            super().__init__()
            self.m = m

        def forward(self, input_ids):
            return self.m(input_ids=input_ids).last_hidden_state

    cfg = transformers.DistilBertConfig()  # distilbert-base: 6 layers, dim 768, 12 heads
    ids = torch.randint(0, cfg.vocab_size, (1, 128), dtype=torch.int64)
    return Encoder(transformers.DistilBertModel(cfg)), (ids,), "DistilBertConfig() base, 128 tokens"


@model("tiny_cnn", "tiny CNN (test)")
def _():
    import torch
    from torch import nn
    m = nn.Sequential(nn.Conv2d(3, 8, 3, padding=1), nn.BatchNorm2d(8), nn.ReLU(),
                      nn.AdaptiveAvgPool2d(1), nn.Flatten(), nn.Linear(8, 10))
    return m, (torch.randn(1, 3, 16, 16),), "conv 3x3, batch norm, relu, pool, linear; 16x16"


# ---------------------------------------------------------------- figures
def summarize(times_ms):
    t = sorted(times_ms)
    return {"runs": len(t), "min_ms": round(t[0], 4), "median_ms": round(statistics.median(t), 4),
            "mean_ms": round(statistics.fmean(t), 4), "max_ms": round(t[-1], 4)}


def fmt(x, digits=3):
    return "-" if x is None else f"{x:.{digits}f}"


def table(rows):
    head = ("| model | ours compile s | ours ms | inductor compile s | inductor ms | ours/inductor "
            "| ort ms | notes |")
    lines = [head, "|---|---:|---:|---:|---:|---:|---:|---|"]
    for r in rows:
        ours, ind, ort = r.get("ours") or {}, r.get("inductor") or {}, r.get("ort") or {}
        ratio = None
        if ours.get("median_ms") and ind.get("median_ms"):
            ratio = ours["median_ms"] / ind["median_ms"]
        ort_cell = fmt(ort.get("median_ms"))
        if ort.get("median_ms") is not None:
            ort_cell += " (CUDA EP)" if ort.get("provider") == "CUDAExecutionProvider" else " (CPU EP)"
        notes = []
        if ours.get("verdict"):
            notes.append("verdict " + ours["verdict"])
        for side in ("export", "ours", "inductor", "ort"):
            err = (r.get(side) or {}).get("error")
            if err:
                notes.append(f"{side}: {err[:120]}")
        if ort.get("note"):
            notes.append("ort: " + ort["note"])
        if r.get("error"):
            notes.append(r["error"][:160])
        lines.append("| {} | {} | {} | {} | {} | {} | {} | {} |".format(
            r.get("label", r["model"]), fmt(ours.get("compile_s"), 2), fmt(ours.get("median_ms")),
            fmt(ind.get("compile_s"), 2), fmt(ind.get("median_ms")),
            "-" if ratio is None else f"{ratio:.2f}x", ort_cell,
            "; ".join(n.replace("|", "/").replace("\n", " ") for n in notes)))
    return "\n".join(lines)


# ---------------------------------------------------------------- one model (child)
def save(row, path):
    tmp = path + ".tmp"
    with open(tmp, "w") as f:
        json.dump(row, f, indent=1, sort_keys=True)
    os.replace(tmp, path)


def export(net, args, path, exporter):
    import torch
    if exporter == "dynamo":
        try:
            torch.onnx.export(net, args, path, dynamo=True)
            return "dynamo"
        except Exception as e:  # the TorchScript exporter still takes most models
            note = f"dynamo export failed ({type(e).__name__}: {str(e)[:200]}); legacy"
            for f in (path, path + ".data"):
                if os.path.exists(f):
                    os.remove(f)
    else:
        note = "legacy"
    kwargs = {"opset_version": 17}
    if "dynamo" in inspect.signature(torch.onnx.export).parameters:
        kwargs["dynamo"] = False
    torch.onnx.export(net, args, path, **kwargs)
    return note


def run_ours(a, onnx_path, work, remaining):
    env = dict(os.environ, REPROKIT_KERNEL_CACHE=os.path.join(work, "rk-kernels"),
               CUDA_CACHE_PATH=os.path.join(work, "cuda-jit-cache"))
    cmd = [a.reprokit, "check", onnx_path, "--device", a.device, "--repeat", str(a.repeat),
           "--warmup", str(a.warmup), "--json", "--timeout", str(max(30, int(remaining * 0.6)))]
    started = time.monotonic()
    p = subprocess.run(cmd, capture_output=True, text=True, env=env, timeout=max(10, remaining),
                       cwd=ROOT)
    out = {"command": " ".join(cmd[1:]), "exit": p.returncode,
           "wall_s": round(time.monotonic() - started, 2)}
    try:
        doc = json.loads(p.stdout)
    except ValueError:
        out["error"] = f"exit {p.returncode}: {(p.stderr or p.stdout).strip()[-400:]}"
        return out
    out["verdict"] = doc.get("kind")
    out["compile_s"] = round(doc.get("timings", {}).get("compile_seconds", 0), 3)
    ss = doc.get("steady_state") or {}
    if "error" in ss or "median_ms" not in ss:
        out["error"] = "steady state: " + ss.get("error", "missing") + " " + p.stderr.strip()[-200:]
        return out
    for k in ("min_ms", "median_ms", "mean_ms", "max_ms", "runs", "warmup", "back_to_back_mean_ms",
              "kernels", "clock"):
        if k in ss:
            out[k] = ss[k]
    out["steady_compile_s"] = round(ss["compile_ms"] / 1e3, 3)
    return out


def cuda_timer(torch):
    start, stop = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)

    def timed(fn):
        torch.cuda.synchronize()
        start.record()
        fn()
        stop.record()
        stop.synchronize()
        return start.elapsed_time(stop)
    return timed


def wall_timer(sync):
    def timed(fn):
        sync()
        t = time.perf_counter()
        fn()
        sync()
        return (time.perf_counter() - t) * 1e3
    return timed


def run_inductor(a, net, args):
    import torch
    if not hasattr(torch, "compile"):
        return {"error": f"torch {torch.__version__} has no torch.compile"}
    cuda = a.device == "cuda"
    dev = torch.device("cuda" if cuda else "cpu")
    net = net.to(dev)
    args = tuple(x.to(dev) for x in args)
    sync = torch.cuda.synchronize if cuda else (lambda: None)
    if getattr(a, "tf32", "default") == "off":  # f32 convolutions and matmuls in f32, as ours
        torch.backends.cudnn.allow_tf32 = False
        torch.backends.cuda.matmul.allow_tf32 = False
    out = {"tf32_cudnn": bool(torch.backends.cudnn.allow_tf32),
           "float32_matmul_precision": torch.get_float32_matmul_precision()}
    with torch.no_grad():
        timed = cuda_timer(torch) if cuda else wall_timer(sync)
        for _ in range(a.warmup):
            net(*args)
        out["eager"] = summarize([timed(lambda: net(*args)) for _ in range(a.repeat)])
        compiled = torch.compile(net)
        sync()
        t = time.perf_counter()
        compiled(*args)
        sync()
        out["compile_s"] = round(time.perf_counter() - t, 3)
        for _ in range(a.warmup):
            compiled(*args)
        out.update(summarize([timed(lambda: compiled(*args)) for _ in range(a.repeat)]))
    out["clock"] = "CUDA events around one call, after a synchronization" if cuda else "wall"
    return out


def run_ort(a, onnx_path, args):
    import numpy as np
    import onnxruntime as ort
    avail = ort.get_available_providers()
    out = {"version": ort.__version__, "available": avail}
    want_cuda = a.device == "cuda"
    providers = ["CPUExecutionProvider"]
    if want_cuda and "CUDAExecutionProvider" in avail:
        cuda_options = {"use_tf32": "0"} if getattr(a, "tf32", "default") == "off" else {}
        providers = [("CUDAExecutionProvider", cuda_options), "CPUExecutionProvider"]
    elif want_cuda:
        out["note"] = "no CUDA provider in this onnxruntime build: CPU provider, for information"
    t = time.perf_counter()
    sess = ort.InferenceSession(onnx_path, providers=providers)
    out["session_s"] = round(time.perf_counter() - t, 3)
    out["provider"] = sess.get_providers()[0]
    if want_cuda and "CUDAExecutionProvider" in avail and out["provider"] != "CUDAExecutionProvider":
        out["note"] = "the CUDA provider did not load: CPU provider, for information"
    feeds = {i.name: np.ascontiguousarray(x.numpy()) for i, x in zip(sess.get_inputs(), args)}
    sync = lambda: None
    if out["provider"] == "CUDAExecutionProvider":
        import torch
        sync = torch.cuda.synchronize
        binding = sess.io_binding()
        on_device = {name: ort.OrtValue.ortvalue_from_numpy(arr, "cuda", 0) for name, arr in feeds.items()}
        for name, value in on_device.items():
            binding.bind_ortvalue_input(name, value)
        for o in sess.get_outputs():
            binding.bind_output(o.name, "cuda")
        run = lambda: sess.run_with_iobinding(binding)
        out["clock"] = "wall between device synchronizations, inputs and outputs bound on the device"
    else:
        run = lambda: sess.run(None, feeds)
        out["clock"] = "wall"
    timed = wall_timer(sync)
    for _ in range(a.warmup):
        run()
    out.update(summarize([timed(run) for _ in range(a.repeat)]))
    return out


def one(a):
    """Child: measures a.one, writing DIR/<model>/row.json after every phase."""
    name = a.one
    work = os.path.join(a.work, name)
    os.makedirs(work, exist_ok=True)
    row_path = os.path.join(work, "row.json")
    label, builder = MODELS[name]
    row = {"model": name, "label": label, "phase": "build"}
    save(row, row_path)
    deadline = time.monotonic() + a.timeout
    import torch
    torch.manual_seed(0)
    row["torch"] = torch.__version__
    try:
        net, args, config = builder()
        net.eval()
        try:  # batch norms with a random batch's statistics, as the zoo does
            sys.path.insert(0, os.path.join(ROOT, "testing", "onnx", "zoo"))
            from build_zoo import liven
            row["liven"] = liven(net, args)
        except Exception as e:
            row["liven"] = f"not done: {type(e).__name__}: {e}"
        row["config"] = config
        row["parameters"] = sum(p.numel() for p in net.parameters())
        row["phase"] = "export"
        save(row, row_path)
        onnx_path = os.path.join(work, "model.onnx")
        t = time.perf_counter()
        row["export"] = {"exporter": export(net, args, onnx_path, a.exporter),
                         "seconds": round(time.perf_counter() - t, 2)}
    except Exception as e:
        row["export"] = {"error": f"{type(e).__name__}: {str(e)[:400]}"}
        save(row, row_path)
        return 1
    for phase, fn in (("ours", lambda: run_ours(a, onnx_path, work, deadline - time.monotonic())),
                      ("ort", lambda: run_ort(a, onnx_path, args)),
                      ("inductor", lambda: run_inductor(a, net, args))):
        row["phase"] = phase
        save(row, row_path)
        try:
            row[phase] = fn()
        except subprocess.TimeoutExpired:
            row[phase] = {"error": "timed out"}
        except Exception as e:
            row[phase] = {"error": f"{type(e).__name__}: {str(e)[:400]}"}
    row["phase"] = "done"
    save(row, row_path)
    return 0


# ---------------------------------------------------------------- the whole run (parent)
def find_reprokit(given):
    if given:
        return given
    if os.environ.get("REPROKIT"):
        return os.environ["REPROKIT"]
    packed = os.path.join(ROOT, ".device", "reprokit.xz")
    if os.path.exists(packed):
        os.makedirs("/tmp/rk", exist_ok=True)
        dest = "/tmp/rk/reprokit.gpu_models"  # unpacked anew: never an older bundle's binary
        with open(dest + ".tmp", "wb") as f:
            subprocess.run(["xz", "-dc", packed], stdout=f, check=True)
        os.chmod(dest + ".tmp", 0o755)
        os.replace(dest + ".tmp", dest)
        return dest
    return os.path.join(ROOT, "bazel-bin", "tools", "reprokit")


def run_child(a, name, timeout):
    cmd = [sys.executable, os.path.abspath(__file__), "--one", name, "--work", a.work,
           "--device", a.device, "--repeat", str(a.repeat), "--warmup", str(a.warmup),
           "--timeout", str(int(timeout)), "--exporter", a.exporter, "--reprokit", a.reprokit,
           "--tf32", a.tf32,
           "--out", a.out]
    cache = os.path.join(a.work, name, "torch-cache")
    env = dict(os.environ, TORCHINDUCTOR_CACHE_DIR=cache, TRITON_CACHE_DIR=os.path.join(cache, "triton"),
               TORCHINDUCTOR_FX_GRAPH_CACHE="0")
    log = open(os.path.join(a.work, name + ".log"), "w")
    p = subprocess.Popen(cmd, stdout=log, stderr=subprocess.STDOUT, env=env, start_new_session=True)
    try:
        p.wait(timeout=timeout + 15)
        timed_out = False
    except subprocess.TimeoutExpired:
        os.killpg(p.pid, signal.SIGKILL)  # the child's session: it, reprokit and its workers
        p.wait()
        timed_out = True
    log.close()
    row_path = os.path.join(a.work, name, "row.json")
    row = {"model": name, "label": MODELS[name][0]}
    if os.path.exists(row_path):
        with open(row_path) as f:
            row = json.load(f)
    if timed_out:
        row["error"] = f"over {int(timeout)} s (in phase {row.get('phase', '?')})"
    elif p.returncode != 0 and not row.get("export", {}).get("error"):
        with open(os.path.join(a.work, name + ".log")) as f:
            tail = f.read()[-400:]
        row["error"] = f"child exit {p.returncode}: {tail}"
    return row


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--out", required=True, help="directory for gpu_models.json and gpu_models.md")
    ap.add_argument("--models", default=",".join(DEFAULT_MODELS),
                    help="comma-separated, from: " + ", ".join(MODELS))
    ap.add_argument("--repeat", type=int, default=50, help="timed runs per side")
    ap.add_argument("--warmup", type=int, default=5, help="untimed runs before them")
    ap.add_argument("--device", choices=("cuda", "cpu"), default="cuda")
    ap.add_argument("--timeout", type=float, default=150, help="seconds a model may take")
    ap.add_argument("--budget", type=float, default=340,
                    help="seconds for all models: none starts with less than 20 s of it left")
    ap.add_argument("--exporter", choices=("dynamo", "legacy"), default="dynamo")
    ap.add_argument("--tf32", choices=("default", "off"), default="default",
                    help="off: Inductor's cuDNN convolutions and matmuls and ONNX Runtime's CUDA "
                         "provider without TF32 (ours computes f32 in f32); default: torch's "
                         "defaults (cuDNN convolutions in TF32)")
    ap.add_argument("--reprokit", default="", help="the reprokit binary (default: see above)")
    ap.add_argument("--work", default="", help="scratch directory (default: a new temporary one)")
    ap.add_argument("--dry-run", action="store_true", help="print the plan and write the table only")
    ap.add_argument("--one", default="", help=argparse.SUPPRESS)  # the per-model child
    a = ap.parse_args()
    names = [n for n in a.models.split(",") if n]
    unknown = [n for n in names if n not in MODELS]
    if unknown or not names:
        ap.error(f"unknown model(s) {unknown}; known: {', '.join(MODELS)}")
    if not 1 <= a.repeat <= 100000 or not 0 <= a.warmup <= 100000:
        ap.error("--repeat must be 1..100000 and --warmup 0..100000")
    if a.timeout < 10 or a.budget < 20:
        ap.error("--timeout must be at least 10 s and --budget at least 20 s")
    if a.one:
        return one(a)

    a.reprokit = os.path.abspath(find_reprokit(a.reprokit))
    if not a.dry_run and not os.access(a.reprokit, os.X_OK):
        print(f"gpu_models_compare: no reprokit binary at {a.reprokit} (--reprokit or $REPROKIT)",
              file=sys.stderr)
        return 2
    if not a.dry_run:
        helptext = subprocess.run([a.reprokit, "check", "--help"], capture_output=True, text=True)
        if "--repeat" not in helptext.stdout + helptext.stderr:
            print(f"gpu_models_compare: {a.reprokit} has no `check --repeat`: rebuild it",
                  file=sys.stderr)
            return 2
    libdevice = os.path.join(ROOT, ".device", "libdevice.10.bc")
    if "REPROKIT_LIBDEVICE" not in os.environ and os.path.exists(libdevice):
        os.environ["REPROKIT_LIBDEVICE"] = libdevice
    os.makedirs(a.out, exist_ok=True)
    own_work = not a.work
    a.work = os.path.abspath(a.work or tempfile.mkdtemp(prefix="gpu_models_"))
    os.makedirs(a.work, exist_ok=True)
    started = time.monotonic()
    rows = []
    for name in names:
        left = a.budget - (time.monotonic() - started)
        if a.dry_run:
            rows.append({"model": name, "label": MODELS[name][0], "error": "dry run: not measured"})
            print(f"{name}: child `--one {name}`, timeout {int(min(a.timeout, left))} s: export ONNX, "
                  f"{os.path.basename(a.reprokit)} check --device {a.device} --repeat {a.repeat} "
                  f"--warmup {a.warmup} --json, onnxruntime, torch.compile", flush=True)
            continue
        if left < 20:
            rows.append({"model": name, "label": MODELS[name][0],
                         "error": f"not started: {int(a.budget)} s budget spent"})
            continue
        t = time.monotonic()
        row = run_child(a, name, min(a.timeout, left))
        row["seconds"] = round(time.monotonic() - t, 1)
        rows.append(row)
        ours, ind = row.get("ours") or {}, row.get("inductor") or {}
        print(f"{name}: {row['seconds']} s, ours {fmt(ours.get('median_ms'))} ms, "
              f"inductor {fmt(ind.get('median_ms'))} ms", flush=True)
    doc = {"device": a.device, "repeat": a.repeat, "warmup": a.warmup, "exporter": a.exporter,
           "tf32": a.tf32,
           "reprokit": a.reprokit, "seconds": round(time.monotonic() - started, 1), "rows": rows}
    try:
        doc["gpu"] = subprocess.run(["nvidia-smi", "--query-gpu=name,driver_version",
                                     "--format=csv,noheader"], capture_output=True, text=True,
                                    timeout=10).stdout.strip()
    except (OSError, subprocess.SubprocessError):
        doc["gpu"] = None
    md = table(rows)
    with open(os.path.join(a.out, "gpu_models.json"), "w") as f:
        json.dump(doc, f, indent=1, sort_keys=True)
    with open(os.path.join(a.out, "gpu_models.md"), "w") as f:
        f.write(f"{a.device}, batch 1, {a.repeat} timed runs after {a.warmup} (medians), "
                f"exporter {a.exporter}, TF32 {a.tf32}, {doc['gpu'] or 'no GPU info'}\n\n{md}\n")
    print(md)
    print(f"total {doc['seconds']} s; wrote {os.path.join(a.out, 'gpu_models.json')} and gpu_models.md")
    if own_work and not a.dry_run:
        shutil.rmtree(a.work, ignore_errors=True)
    if a.dry_run:
        return 0
    return 0 if all((r.get("ours") or {}).get("median_ms") is not None for r in rows) else 1


if __name__ == "__main__":
    sys.exit(main())
