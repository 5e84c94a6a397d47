"""`backend(...)`: a torch.compile backend that turns failing compiles into bundles.

    torch.compile(model, backend=reprokit_torch.backend("inductor", out="bugs/",
                                                        level="accuracy", stage="aot"))

It wraps any backend: a registered name (torch._dynamo.lookup_backend) or a
compiler function. Per graph it compiles with the inner backend, then runs the
compiled graph once on real inputs (at the Dynamo stage the example inputs;
at the AOT stage, where the inner compiler sees fake tensors, the program's
own arguments at the compiled graph's first call, parameters and buffers
included, as PyTorch's REPRO_AFTER=aot does), and, by `level`:
  "compile"  a compile error is captured;
  "runtime"  also an error running the compiled graph;
  "accuracy" also a result the rule of accuracy.py rejects against eager, given
             the fp64 eager run.
A failure writes `out/<graph>-<n>/` (save() in bundle.py) and then behaves as
the inner backend would: errors are re-raised, a wrong result is returned.
stage="aot" captures the ATen graphs after AOT autograd, forward and backward
separately (Inductor: through compile_fx's inner_compile hook; others: through
aot_autograd); stage="dynamo" captures Dynamo's graph, traced to ATen by make_fx.
Tested by python/tests/test_backend.py (GraphCapture with make_fx graphs and
fake inner compilers on torch 1.13; the torch.compile path on torch 2.x:
bench/torch_capture_compare.py).
"""

import copy
import itertools
import os
import sys
import traceback

import torch

from . import accuracy
from . import bundle

LEVELS = ("compile", "runtime", "accuracy")
STAGES = ("aot", "dynamo")


def inductor_config_diff():
    """Inductor config keys whose value differs from the default (flattened with dots)."""
    try:
        import torch._inductor.config as cfg
    except ImportError:
        return {}
    diff = {}
    try:
        current = cfg.get_config_copy()
        defaults = cfg._default if hasattr(cfg, "_default") else None
        for key, value in current.items():
            default = None
            if defaults is not None and key in defaults:
                default = defaults[key]
            elif hasattr(cfg, "_config") and key in cfg._config:
                default = getattr(cfg._config[key], "default", None)
            else:
                continue
            if value != default and isinstance(value, (bool, int, float, str)):
                diff[key] = value
    except Exception:  # config internals move between versions: record what we can
        pass
    return diff


def _real(t, seed):
    """A real tensor for a (possibly fake) example input: random of its type."""
    if not isinstance(t, torch.Tensor):
        return _hint(t) if hasattr(t, "node") else t  # a SymInt input: its value
    try:
        from torch._subclasses.fake_tensor import FakeTensor
        fake = isinstance(t, FakeTensor)
    except ImportError:
        fake = False
    if not fake and t.device.type != "meta":
        return t
    shape = [_hint(d) for d in t.shape]
    g = torch.Generator().manual_seed(seed)
    if t.dtype.is_floating_point:
        x = torch.randn(shape, generator=g, dtype=torch.float32).to(t.dtype)
    elif t.dtype == torch.bool:
        x = torch.randint(0, 2, shape, generator=g).bool()
    else:
        x = torch.randint(0, 2, shape, generator=g).to(t.dtype)
    device = t.device if t.device.type != "meta" else "cpu"
    return x.to(device).requires_grad_(t.requires_grad)


def _is_fake(t):
    if not isinstance(t, torch.Tensor):
        return False
    try:
        from torch._subclasses.fake_tensor import FakeTensor
        if isinstance(t, FakeTensor):
            return True
    except ImportError:
        pass
    return t.device.type == "meta"


def _detached_copy(a):
    """A copy of a call argument that the compiled graph cannot change (it may
    mutate its inputs in place, or, called boxed, empty the argument list)."""
    if isinstance(a, torch.Tensor):
        with torch.no_grad():
            return a.detach().clone()
    return a


def _hint(d):
    """A size's value without guarding on it (a SymInt's hint), else the int."""
    hint = getattr(getattr(d, "node", None), "hint", None)
    return int(hint) if hint is not None else int(d)


def real_mode():
    """A context where tensors are real: inside Inductor's inner compile a fake
    tensor mode is active, and running the graph there on real tensors fails
    ("Please convert all Tensors to FakeTensors first")."""
    try:
        from torch._subclasses.fake_tensor import unset_fake_temporarily
        return unset_fake_temporarily()
    except ImportError:
        import contextlib
        return contextlib.nullcontext()


def real_inputs(example_inputs, seed=0):
    with real_mode():
        return [_real(t, seed + i) for i, t in enumerate(example_inputs)]


def copy_graph_module(gm):
    """gm with a copy of its graph (nodes' meta shallow-copied: no fake tensors copied);
    its parameters and constants shared."""
    try:
        graph = torch.fx.Graph()
        out = graph.graph_copy(gm.graph, {})
        graph.output(out)
        return torch.fx.GraphModule(gm, graph)
    except Exception:
        return gm


def fp64_graph(gm):
    """A copy of gm in float64: its parameters, buffers and float dtype arguments."""
    gm = copy.deepcopy(gm).double()
    lower = (torch.float16, torch.bfloat16, torch.float32)

    def up(a):
        return torch.float64 if a in lower else a
    for n in gm.graph.nodes:
        n.args = torch.fx.node.map_aggregate(n.args, up)
        n.kwargs = torch.fx.node.map_aggregate(n.kwargs, up)
    gm.recompile()
    return gm


def fp64_inputs(inputs):
    return [t.detach().double() if isinstance(t, torch.Tensor) and t.dtype.is_floating_point
            else t for t in inputs]


def call(compiled, inputs):
    """Calls a compiled graph in its convention (boxed: one list argument)."""
    if getattr(compiled, "_boxed_call", False):
        return compiled(list(inputs))
    return compiled(*inputs)


class GraphCapture:
    """Checks graphs compiled by an inner compiler and saves the failing ones."""

    def __init__(self, out="bugs", level="accuracy", stage="aot", inner_name="",
                 reprokit_backend=None, reprokit_backend_options=None, tol=None, judge=True,
                 reprokit=None, random="inputs", pool=0, log=sys.stderr):
        if level not in LEVELS:
            raise ValueError("level must be one of %s, not %r" % (", ".join(LEVELS), level))
        if stage not in STAGES:
            raise ValueError("stage must be one of %s, not %r" % (", ".join(STAGES), stage))
        self.out, self.level, self.stage, self.inner_name = out, level, stage, inner_name
        self.reprokit_backend = reprokit_backend
        self.reprokit_backend_options = reprokit_backend_options
        self.tol, self.judge, self.reprokit, self.random = tol, judge, reprokit, random
        self.pool = pool
        self.log = log
        self.counter = itertools.count()
        self.saved = []     # (path, verdict kind)
        self.failures = []  # (graph kind, gm, real inputs), kept for in-process tools

    def compile(self, gm, example_inputs, compile_fn, kind="graph"):
        """compile_fn(gm, example_inputs) -> compiled; checks it and returns it."""
        gm_copy = copy_graph_module(gm)  # the inner compiler may rewrite gm's graph
        try:
            compiled = compile_fn(gm, example_inputs)
        except Exception as e:
            self._save(gm_copy, example_inputs, kind, {"kind": "compile_error",
                                                        "message": _one_line(e)})
            raise
        if self.level == "compile":
            return compiled
        if any(_is_fake(t) for t in example_inputs):
            return self._check_on_first_call(gm_copy, compiled, kind)
        with real_mode():
            return self._check(gm_copy, example_inputs, compiled, kind)

    def _check_on_first_call(self, gm_copy, compiled, kind):
        """The compiled graph, checked on its first call with the program's own
        arguments: at the AOT stage the compiler sees fake tensors, and random
        values in their place can hide a bug (a BatchNorm's running variance
        drawn negative makes every output NaN on both sides)."""
        boxed = getattr(compiled, "_boxed_call", False)
        state = {"checked": False}

        def run(args):
            if state["checked"]:
                return compiled(args) if boxed else compiled(*args)
            state["checked"] = True
            kept = [_detached_copy(a) for a in args]
            with real_mode():
                return self._check(gm_copy, kept, compiled, kind, run_args=args, boxed=boxed)

        if boxed:
            def wrapper(args):
                return run(args)
            wrapper._boxed_call = True
        else:
            def wrapper(*args):
                return run(list(args))
        wrapper.__wrapped__ = compiled
        return wrapper

    def _check(self, gm_copy, example_inputs, compiled, kind, run_args=None, boxed=None):
        """Runs compiled once and judges it. Without run_args (the inputs are real
        at compile time) returns compiled; with them (a deferred check on the
        program's own arguments, example_inputs their copies) returns the result."""
        inputs = real_inputs(example_inputs)
        try:
            if run_args is not None:
                result = compiled(run_args) if boxed else compiled(*run_args)
            else:
                with torch.no_grad():
                    result = call(compiled, inputs)
        except (TypeError, AttributeError) as e:
            if run_args is not None:  # called as the program calls it: its own failure
                self._save(gm_copy, inputs, kind, {"kind": "runtime_error",
                                                   "message": _one_line(e)})
                raise
            # More likely a calling convention this wrapper does not know than the
            # compiled code's failure: say so, and leave the program alone.
            self.log.write("reprokit_torch: cannot run the compiled %s graph to check it: %s\n"
                           % (kind, _one_line(e)))
            return compiled
        except Exception as e:
            self._save(gm_copy, inputs, kind, {"kind": "runtime_error", "message": _one_line(e)})
            raise
        if self.level == "accuracy":
            self.check_accuracy(gm_copy, inputs, result, kind)
        return result if run_args is not None else compiled

    def check_accuracy(self, gm, inputs, result, kind):
        with torch.no_grad():
            ref = gm(*[t.detach() if isinstance(t, torch.Tensor) else t for t in inputs])
            try:
                fp64 = fp64_graph(gm)(*fp64_inputs(inputs))
            except Exception:
                fp64 = None
        ok, details = accuracy.same_within_tolerance(ref, result, fp64, self.tol)
        if not ok:
            self._save(gm, inputs, kind, {"kind": "accuracy", "message":
                                          "compiled result differs from eager beyond tolerance",
                                          "outputs": details})
        return ok

    def backend_options(self):
        """The replay backend's options: given, or (Inductor) its config keys set now."""
        if self.reprokit_backend_options is not None:
            return self.reprokit_backend_options
        if self.reprokit_backend == "torch_inductor":
            return inductor_config_diff()
        return {}

    def _save(self, gm, inputs, kind, verdict):
        with real_mode():
            return self._save_real(gm, inputs, kind, verdict)

    def _save_real(self, gm, inputs, kind, verdict):
        self.failures.append((kind, gm, real_inputs(inputs)))
        if not self.out:
            return None
        path = os.path.join(self.out, "%s-%d" % (kind, next(self.counter)))
        try:
            device = next((t.device.type for t in inputs if isinstance(t, torch.Tensor)), "cpu")
            saved = bundle.save(
                gm, real_inputs(inputs), path, graph_kind=kind, stage=self.stage,
                inner_backend=self.inner_name,
                inner_config=inductor_config_diff() if "inductor" in str(self.inner_name) else {},
                backend=self.reprokit_backend, backend_options=self.backend_options(),
                device=device, torch_verdict=verdict, judge=self.judge, reprokit=self.reprokit,
                random=self.random, trace=self.stage == "dynamo", pool=self.pool)
            self.saved.append((saved, verdict["kind"]))
            self.log.write("reprokit_torch: %s in the %s graph: bundle %s\n" % (
                verdict["kind"], kind, saved))
            return saved
        except Exception as e:  # capturing must never change what the user's program does
            # The whole message: an unsupported-op refusal lists every op on its own line.
            lines = ("%s: %s" % (type(e).__name__, e)).splitlines()[:30]
            self.log.write("reprokit_torch: could not save the %s graph (%s): %s\n" % (
                kind, verdict["kind"], "\n  ".join(l.strip() for l in lines)))
            if os.environ.get("REPROKIT_TORCH_DEBUG"):
                traceback.print_exc()
            return None


def _one_line(e):
    text = "%s: %s" % (type(e).__name__, e)
    return text.splitlines()[0][:500] if text else type(e).__name__


def _inner_compiler(inner):
    if callable(inner):
        return inner
    from torch._dynamo import lookup_backend
    return lookup_backend(inner)


def backend(inner="inductor", out="bugs", level="accuracy", stage="aot", **options):
    """A torch.compile backend wrapping `inner` (a name or a compiler function).

    options: reprokit_backend (the backend the bundle replays with; default
    "torch_inductor" for Inductor, else reprokit's built-in compiler),
    reprokit_backend_options, tol, judge, reprokit (binary path), random
    ("inputs": random ops' values become graph inputs, or "refuse"), pool (N > 0:
    at the first failure, start a warm `reprokit backend-pool` of N processes of the
    replay backend, used by the judgement and by a later `reprokit minify`).
    """
    name = inner if isinstance(inner, str) else getattr(inner, "__name__", "custom")
    if "reprokit_backend" not in options and name == "inductor":
        options["reprokit_backend"] = "torch_inductor"
    capture = GraphCapture(out, level, stage, name, **options)

    def dynamo_stage(gm, example_inputs):
        return capture.compile(gm, example_inputs, _inner_compiler(inner), "dynamo")

    def aot_stage(gm, example_inputs):
        if name == "inductor":
            from torch._inductor.compile_fx import compile_fx, compile_fx_inner

            def inner_compile(g, ex, **kw):
                kind = "backward" if kw.get("is_backward") else "forward"
                return capture.compile(g, ex, lambda g2, ex2: compile_fx_inner(g2, ex2, **kw),
                                       kind)
            return compile_fx(gm, example_inputs, inner_compile=inner_compile)
        from torch._dynamo.backends.common import aot_autograd
        from torch._functorch.aot_autograd import make_boxed_func
        fn = _inner_compiler(inner)

        def boxed(g, ex):
            compiled = fn(g, ex)
            return compiled if getattr(compiled, "_boxed_call", False) else make_boxed_func(compiled)

        def fw(g, ex):
            return capture.compile(g, ex, boxed, "forward")

        def bw(g, ex):
            return capture.compile(g, ex, boxed, "backward")
        return aot_autograd(fw_compiler=fw, bw_compiler=bw)(gm, example_inputs)

    compiler = aot_stage if stage == "aot" else dynamo_stage
    compiler.capture = capture
    compiler.__name__ = "reprokit_torch_%s_%s" % (stage, name)
    return compiler
