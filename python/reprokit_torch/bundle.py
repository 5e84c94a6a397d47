"""`save`: an FX graph and its inputs -> a reprokit bundle (docs/BUNDLE.md).

The bundle is written as reprokit writes one: graph.rk (large constants as
sha256 references), blobs/ (the real input tensors and those constants, in
the content store's object format), repro.json and a README.md; assembled in a
hidden directory beside the target and renamed into place. repro.json's
`expected` is "not judged" unless a reprokit binary is found (argument,
$REPROKIT_BIN, or `reprokit` on PATH): then `reprokit check BUNDLE --json`
judges it and its verdict is recorded, so `minify` and `bisect` have a
signature to keep. `provenance.source` records what torch saw: torch's
version, the stage, the inner backend and its non-default config, the device,
the specialized sizes, the ATen op counts and torch's own verdict.
Tested by python/tests/test_convert.py, python/tests/test_convert_ops.py and
python/tests/test_backend.py.
"""

import datetime
import json
import os
import platform
import shlex
import shutil
import subprocess
import sys
import tempfile

import torch
import torch._decomp

from . import convert as convert_mod
from . import store
from .rk_graph import FLOATS

NOT_JUDGED = {
    "kind": "pass", "signature": "pass",
    "message": "not judged: written by reprokit_torch (`reprokit check` judges it)",
    "accuracy_subkind": "", "policy": "torch", "outputs": [], "judged": False,
}


_ATEN_TARGETS = tuple(t for t in (torch._ops.OpOverload, torch._ops.OpOverloadPacket,
                                   getattr(torch._ops, "HigherOrderOperator", None)) if t)


def is_aten_graph(gm):
    """Only ATen (and higher-order) ops, and Python operators on their sizes or tuples.

    A graph of Python operators alone (`x * self.s`, as torch.fx.symbolic_trace and
    Dynamo write tensor arithmetic) is torch level."""
    has_aten = False
    for n in gm.graph.nodes:
        if n.op in ("call_module", "call_method"):
            return False
        if n.op != "call_function":
            continue
        if isinstance(n.target, _ATEN_TARGETS):
            has_aten = True
        elif getattr(n.target, "__module__", "") not in ("_operator", "operator"):
            return False
    return has_aten


def to_aten(gm, example_inputs, decompositions=None):
    """A Dynamo-level (torch IR) graph traced to ATen with make_fx: functionalized
    (no in-place ops) and, on torch 2.x, in the core ATen opset, unless
    `decompositions` says otherwise."""
    from torch.fx.experimental.proxy_tensor import make_fx
    if decompositions is None:
        core = getattr(torch._decomp, "core_aten_decompositions", None)
        decompositions = core() if core is not None else {}
    fn = gm
    functionalize = getattr(getattr(torch, "func", None), "functionalize", None)
    if functionalize is None:
        try:
            from functorch import functionalize
        except ImportError:
            functionalize = None
    if functionalize is not None:
        fn = functionalize(gm)
    # Traced on copies: tracing runs the graph, which may write its inputs.
    copies = [t.clone() if isinstance(t, torch.Tensor) else t for t in example_inputs]
    return make_fx(fn, decomposition_table=decompositions)(*copies)


def compile_options_text(backend=None, backend_options=None, device=None, extra=None):
    items = []
    if device and device != "cpu":
        items.append("device=" + device)
    if backend and backend != "builtin":
        items.append("backend=" + backend)
        opts = ["%s:%s" % (k, _option_text(v)) for k, v in sorted((backend_options or {}).items())
                if _option_ok(k, v)]
        if opts:
            items.append("backend_options=" + ",".join(opts))
    items.extend(extra or [])
    return " ".join(items)


def _option_text(v):
    if isinstance(v, bool):
        return "true" if v else "false"
    return str(v)


def _option_ok(k, v):
    text = _option_text(v)
    return all(c not in text + k for c in ", \t\n") and ":" not in k and text != ""


def find_reprokit(explicit=None):
    for candidate in (explicit, os.environ.get("REPROKIT_BIN"), shutil.which("reprokit")):
        if candidate and os.access(candidate, os.X_OK):
            return candidate
    return None


def environment(device):
    env = {
        "os": "%s %s" % (platform.system(), platform.release()),
        "arch": platform.machine(),
        "cpu_model": _cpu_model(),
        "cpu_count": os.cpu_count() or 0,
        "gpu": None,
        "python_version": platform.python_version(),
        "torch_version": torch.__version__,
    }
    if torch.cuda.is_available():
        env["gpu"] = {"name": torch.cuda.get_device_name(0), "count": torch.cuda.device_count(),
                      "cuda_version": torch.version.cuda or ""}
    return env


def _cpu_model():
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor()


def command_line():
    home = os.path.expanduser("~")
    argv = [sys.executable.split("/")[-1]] + list(sys.argv)
    text = " ".join(shlex.quote(a) for a in argv)
    return text.replace(home, "~") if home and home != "/" else text


def save(gm, example_inputs, out_dir, *, name=None, backend=None, backend_options=None,
         device=None, stage=None, graph_kind="graph", inner_backend=None, inner_config=None,
         torch_verdict=None, grad_inputs=(), random="refuse", reprokit=None, judge=True,
         decompositions=None, tolerance=None, options=(), trace="auto", pool=0):
    """Writes the bundle `out_dir` for `gm` run on `example_inputs`; returns its path.

    gm: an ATen-level GraphModule (make_fx, AOT autograd), or a Dynamo-level one,
      which is traced with make_fx (and `decompositions`) first.
    backend, backend_options: the reprokit backend the bundle replays with
      ("torch_inductor" and its options, e.g. {"cpp.inject_relu_bug_TESTING_ONLY":
      "accuracy"}); None is reprokit's built-in compiler.
    grad_inputs: indices of inputs to mark `grad` (docs/FORMAT.md).
    random: "refuse" random ops, or record their values as "inputs".
    judge: run `reprokit check` to record the verdict when a binary is found.
    options: more reprokit compile options, "key=value" (e.g. "faults=relu:accuracy").
    trace: "auto" traces a graph with non-ATen nodes, or with in-place ops, with make_fx
      (functionalized); False never does.
    pool: with an external backend and judge, first start `reprokit backend-pool` of
      this many processes (once per process; it stops after 10 idle minutes), so that
      this judgement and a later `reprokit minify` find the backend started and warm.
    Raises convert.UnsupportedOpsError listing every op that does not map.
    """
    example_inputs = list(example_inputs)
    if trace is True or (trace == "auto" and not is_aten_graph(gm)):
        gm = to_aten(gm, example_inputs, decompositions)
    elif trace == "auto" and any(convert_mod._mutates(n) for n in gm.graph.nodes
                                 if n.op == "call_function"):
        gm = to_aten(gm, example_inputs, decompositions or {})  # functionalized, ops kept
    tensors = [t for t in example_inputs if isinstance(t, torch.Tensor)]
    if device is None:
        device = tensors[0].device.type if tensors else "cpu"
    name = name or graph_kind or "graph"
    conv = convert_mod.convert(gm, example_inputs, name, grad_inputs, random)

    out_dir = os.path.abspath(out_dir)
    parent = os.path.dirname(out_dir)
    os.makedirs(parent, exist_ok=True)
    if os.path.exists(out_dir) and os.listdir(out_dir) and not os.path.exists(
            os.path.join(out_dir, "repro.json")):
        raise FileExistsError("%s exists and is not a bundle: refusing to write over it" % out_dir)
    tmp = tempfile.mkdtemp(prefix=".%s.tmp." % os.path.basename(out_dir), dir=parent)
    try:
        _write(tmp, conv, locals())
        if os.path.exists(out_dir):
            old = tempfile.mkdtemp(prefix=".%s.old." % os.path.basename(out_dir), dir=parent)
            os.rename(out_dir, os.path.join(old, "b"))
            os.rename(tmp, out_dir)
            shutil.rmtree(old, ignore_errors=True)
        else:
            os.rename(tmp, out_dir)
    except BaseException:
        shutil.rmtree(tmp, ignore_errors=True)
        raise
    binary = find_reprokit(reprokit) if judge else None
    if binary:
        if pool and backend:
            start_pool(binary, backend, pool, device)
        judge_bundle(out_dir, binary)
    return out_dir


_POOLS_STARTED = set()


def start_pool(binary, backend, jobs, device, idle=600):
    """`reprokit backend-pool start` (once per backend and process): returns when its
    first process is warm on `device`; the others warm up while the caller goes on."""
    if (backend, device) in _POOLS_STARTED or os.environ.get("REPROKIT_BACKEND_POOL") == "off":
        return
    _POOLS_STARTED.add((backend, device))
    try:
        proc = subprocess.run([binary, "backend-pool", "start", backend, "-j", str(int(jobs)),
                               "--warm", device, "--ready", "first", "--idle", str(idle)],
                              capture_output=True, text=True, timeout=300)
    except subprocess.TimeoutExpired:
        sys.stderr.write("reprokit_torch: the %s pool did not start in 300 s\n" % backend)
        return
    if proc.returncode != 0:  # judging still works without it: said, not raised
        sys.stderr.write("reprokit_torch: could not start the %s pool (exit %d): %s\n" % (
            backend, proc.returncode, proc.stderr.strip()[-300:]))


def _write(tmp, conv, a):
    blobs = os.path.join(tmp, "blobs")
    os.makedirs(blobs)
    for lit in conv.graph.literals():
        if lit.values is None:
            lit.digest = store.put_blob(blobs, lit.raw)
    inputs = []
    for (value, _), t in zip(conv.graph.inputs, conv.input_tensors):
        raw = convert_mod.tensor_bytes(t)
        inputs.append({"name": value.name, "dtype": value.dtype, "shape": list(value.shape),
                       "source": "blob", "sha256": store.put_blob(blobs, raw),
                       "byte_size": len(raw)})
    what = "A graph" if a["graph_kind"] == "graph" else "The %s graph" % a["graph_kind"]
    header = "// %s captured from PyTorch %s by reprokit_torch.\n" % (what, torch.__version__)
    with open(os.path.join(tmp, "graph.rk"), "w") as f:
        f.write(conv.graph.to_text(header))
    source = {
        "kind": "pytorch",
        "torch_version": torch.__version__,
        "stage": a["stage"],
        "graph_kind": a["graph_kind"],
        "inner_backend": a["inner_backend"],
        "inner_config": a["inner_config"] or {},
        "device": a["device"],
        "specialized_sizes": conv.specialized,
        "lifted_constants": conv.lifted_constants,
        "output_positions": conv.output_map,
        "aten_ops": dict(sorted(conv.op_counts.items())),
        "torch_verdict": a["torch_verdict"],
    }
    tolerance = a["tolerance"] or {"policy": "torch", "tol": 0.0}
    doc = {
        "format": "reprokit-bundle",
        "version": 1,
        "graph": "graph.rk",
        "compile_options": {"text": compile_options_text(a["backend"], a["backend_options"],
                                                         a["device"], a["options"])},
        "inputs": inputs,
        "expected": dict(NOT_JUDGED),
        "tolerance": tolerance,
        "environment": environment(a["device"]),
        "provenance": {
            "created_at": datetime.datetime.utcnow().strftime("%Y-%m-%dT%H:%M:%SZ"),
            "captured_by": "reprokit_torch",
            "command_line": command_line(),
            "parent_bundle": None,
            "source": source,
        },
        "minimization": {},
    }
    with open(os.path.join(tmp, "repro.json"), "w") as f:
        json.dump(doc, f, indent=2)
        f.write("\n")
    _write_readme(tmp, doc)


def _write_readme(path, doc):
    src = doc["provenance"]["source"]
    exp = doc["expected"]
    verdict = src.get("torch_verdict") or {}
    lines = [
        "# reprokit bundle captured from PyTorch",
        "",
        "Generated by reprokit_torch; do not edit.",
        "",
        "- graph: the %s graph (%s stage), torch %s, device %s" % (
            src["graph_kind"], src["stage"] or "given", src["torch_version"], src["device"]),
        "- inner backend: %s" % (src["inner_backend"] or "none"),
        "- torch saw: %s" % (verdict.get("kind", "nothing recorded")),
        "- reprokit verdict: `%s`%s" % (exp["signature"], "" if exp.get("judged") else
                                        " (not judged)"),
        "- compile options: `%s`" % (doc["compile_options"]["text"] or "(defaults)"),
        "- captured by: `%s`" % doc["provenance"]["command_line"],
        "",
        "```sh",
        "reprokit check .        # judge against the fp64 reference",
        "reprokit run .          # replay and print the outputs",
        "reprokit minify . -o min/",
        "```",
        "",
    ]
    with open(os.path.join(path, "README.md"), "w") as f:
        f.write("\n".join(lines))


def judge_bundle(path, binary, extra_args=()):
    """Records `reprokit check`'s verdict as the bundle's expected one; returns it."""
    proc = subprocess.run([binary, "check", path, "--json"] + list(extra_args),
                          capture_output=True, text=True)
    if proc.returncode not in (0, 1) or not proc.stdout.strip():
        sys.stderr.write("reprokit_torch: could not judge %s (exit %d): %s\n" % (
            path, proc.returncode, proc.stderr.strip()[-500:]))
        return None
    verdict = json.loads(proc.stdout)
    verdict["judged"] = True
    doc_path = os.path.join(path, "repro.json")
    with open(doc_path) as f:
        doc = json.load(f)
    doc["expected"] = verdict
    doc.pop("bundle_hash", None)
    tmp = doc_path + ".tmp"
    with open(tmp, "w") as f:
        json.dump(doc, f, indent=2)
        f.write("\n")
    os.replace(tmp, doc_path)
    _write_readme(path, doc)
    return verdict
