"""ATen FX graph -> reprokit graph (docs/PYTORCH.md has the op table).

`convert(gm, example_inputs)` runs the GraphModule once on the example inputs
(torch.fx.Interpreter), so every node's real value is known: symbolic sizes,
SymInt arithmetic and `sym_size` calls are specialized to those values (and
recorded), every node's type is checked against what torch produced, and the
outputs are the eager reference. Then each node goes through its handler in
`aten_ops.HANDLERS`, which emits reprokit ops with explicit casts, broadcasts and
layouts (views become copies: the graph is functional; `as_strided` becomes a
gather from the flattened base). An op without a handler, or a use a handler
refuses, is collected; at the end one `UnsupportedOpsError` lists every
unsupported op with its count and first node, never dropping any.
Tested by python/tests/test_convert_ops.py (op by op) and python/tests/test_convert.py.
"""

import collections
import math

import numpy as np
import torch
import torch.fx

from . import rk_graph
from .rk_graph import Dtype, FLOATS, Value

TORCH_TO_RK = {
    torch.float16: "f16", torch.bfloat16: "bf16", torch.float32: "f32", torch.float64: "f64",
    torch.int32: "i32", torch.int64: "i64", torch.bool: "bool",
}
RK_TO_TORCH = {v: k for k, v in TORCH_TO_RK.items()}
# Carried in a wider reprokit dtype: every value exact. Inductor's max-pool offsets
# (prims._low_memory_max_pool_with_offsets) are int8.
CARRIED = {torch.int8: "i32"}

# A constant of more elements becomes a graph input: reprokit's inline literal limit
# (docs/FORMAT.md, "Limits"), which its canonical form reaches for any constant.
LIFT_ELEMENTS = 1 << 22

RANDOM_WORDS = ("rand", "bernoulli", "dropout", "normal", "uniform", "multinomial", "philox",
                "rng", "exponential", "geometric", "cauchy", "log_normal", "poisson", "seed")


class Refused(Exception):
    """A node this converter cannot express (the op, or this use of it)."""


class UnsupportedOpsError(Exception):
    """Every op of the graph that could not be converted, in one error.

    `ops` is a list of (op name, count, first node name, reason or None).
    """

    def __init__(self, ops):
        self.ops = ops
        lines = ["%d unsupported ATen op%s (nothing was dropped; the graph was not converted):"
                 % (len(ops), "" if len(ops) == 1 else "s")]
        for op, count, first, reason in ops:
            lines.append("  %s x%d, first at node %s%s" % (op, count, first,
                                                          ": " + reason if reason else ""))
        super().__init__("\n".join(lines))


class Lazy:
    """A tuple element computed only when a getitem asks for it (e.g. layer norm's rstd)."""

    def __init__(self, fn):
        self.fn, self.value = fn, None

    def get(self):
        if self.value is None:
            self.value = self.fn()
        return self.value


class Poison:
    """The value of a node that was refused: its users are skipped, not counted again."""


def op_name(target):
    if isinstance(target, torch._ops.OpOverload):
        return str(target)  # aten.add.Tensor
    if isinstance(target, torch._ops.OpOverloadPacket):
        return str(target) + ".default"
    return getattr(target, "__module__", "") + "." + getattr(target, "__name__", str(target))


def rk_dtype(dt):
    if dt in CARRIED:
        return CARRIED[dt]
    if dt not in TORCH_TO_RK:
        raise Refused("dtype %s has no reprokit equivalent" % dt)
    return TORCH_TO_RK[dt]


def carried(t):
    """t in the dtype reprokit holds it in (a CARRIED dtype widened)."""
    return t.to(RK_TO_TORCH[CARRIED[t.dtype]]) if t.dtype in CARRIED else t


def tensor_bytes(t):
    t = carried(t.detach().to("cpu")).contiguous()
    if t.dtype == torch.bfloat16:
        return t.view(torch.int16).numpy().tobytes()
    return t.numpy().tobytes()


def tensor_numpy(t):
    """NumPy array of a tensor (bf16 as uint16 bit patterns)."""
    t = carried(t.detach().to("cpu")).contiguous()
    if t.dtype == torch.bfloat16:
        return t.view(torch.int16).numpy().view(np.uint16)
    return t.numpy()


class _Recorder(torch.fx.Interpreter):
    def __init__(self, gm):
        super().__init__(gm)
        self.values = {}

    def run_node(self, n):
        result = super().run_node(n)
        self.values[n] = result
        return result


class Converted:
    """What `convert` made: the graph, its inputs' tensors and the eager outputs."""

    def __init__(self, graph, input_tensors, outputs, output_map, specialized, op_counts):
        self.graph = graph                  # RkGraph
        self.input_tensors = input_tensors  # torch tensors, in the graph's input order
        self.outputs = outputs              # eager results, one per graph output
        self.output_map = output_map        # FX output position of each graph output
        self.specialized = specialized      # {node: int value} of symbolic sizes
        self.op_counts = op_counts          # {aten op: count}


class Converter:
    def __init__(self, gm, example_inputs, name="graph", grad_inputs=(), random="refuse"):
        if random not in ("refuse", "inputs"):
            raise ValueError("random must be 'refuse' or 'inputs'")
        self.gm, self.example_inputs = gm, list(example_inputs)
        self.g = rk_graph.RkGraph(name)
        self.grad_inputs = set(grad_inputs)
        self.random = random
        self.hint = "v"
        self._current_op = ""
        self._current_real_args = ()
        self.input_tensors = []
        self.specialized = {}
        self.lifted = []  # get_attr constants made inputs
        self.mutations = []  # (input name, its new value, torch's) from copy_ into inputs

    # -- value helpers used by the handlers --------------------------------
    def full(self, value, dtype, shape=()):
        shape = [int(d) for d in shape]
        if isinstance(value, bool):
            value = 1.0 if value else 0.0
        if dtype in FLOATS or dtype == "bool" or abs(int(value)) < 2 ** 53:
            return self.g.add("full", [], {"value": float(value), "dtype": Dtype(dtype),
                                           "shape": shape}, dtype, shape, self.hint)
        lit = rk_graph.literal_from_numpy(np.array(int(value), dtype=np.int64).astype(
            np.int32 if dtype == "i32" else np.int64), dtype)
        c = self.g.add("constant", [], {"value": lit}, dtype, (), self.hint)
        return self.broadcast_to(c, shape)

    def constant(self, t):
        """A constant node holding a tensor's values (exact; large ones go to blobs)."""
        dtype = rk_dtype(t.dtype)
        lit = rk_graph.literal_from_numpy(tensor_numpy(t), dtype)
        return self.g.add("constant", [], {"value": lit}, dtype, tuple(t.shape), self.hint)

    def tensor(self, x, dtype=None):
        """A Value of `dtype` (default: its own) from a Value or a Python number."""
        if isinstance(x, Lazy):
            x = x.get()
        if isinstance(x, Value):
            return self.cast(x, dtype) if dtype else x
        if isinstance(x, torch.Tensor):  # a tensor argument that is not a graph value
            return self.cast(self.constant(x), dtype) if dtype else self.constant(x)
        if isinstance(x, (bool, int, float)):
            if dtype is None:
                dtype = "bool" if isinstance(x, bool) else "i64" if isinstance(x, int) else "f32"
            if dtype in FLOATS:
                x = float(x)
            return self.full(x, dtype, ())
        raise Refused("operand %r is not a tensor or a number" % (x,))

    def cast(self, x, dtype):
        if x.dtype == dtype:
            return x
        return self.g.add("cast", [x], {"dtype": Dtype(dtype)}, dtype, x.shape, self.hint)

    def reshape(self, x, shape):
        shape = tuple(int(d) for d in shape)
        if x.shape == shape:
            return x
        if -1 in shape:
            known = int(np.prod([d for d in shape if d != -1])) if len(shape) > 1 else 1
            n = int(np.prod(x.shape))
            shape = tuple(n // known if d == -1 else d for d in shape)
        if int(np.prod(shape)) != int(np.prod(x.shape)):
            raise Refused("reshape of %s to %s" % (x.type_text(), list(shape)))
        return self.g.add("reshape", [x], {"shape": list(shape)}, x.dtype, shape, self.hint)

    def transpose(self, x, perm):
        perm = [int(p) for p in perm]
        if perm == list(range(x.rank)):
            return x
        return self.g.add("transpose", [x], {"perm": perm}, x.dtype,
                          [x.shape[p] for p in perm], self.hint)

    def broadcast_to(self, x, shape):
        shape = tuple(int(d) for d in shape)
        if x.shape == shape:
            return x
        return self.g.add("broadcast_to", [x], {"shape": list(shape)}, x.dtype, shape, self.hint)

    def slice(self, x, axis, start, limit, stride=1):
        if start == 0 and limit == x.shape[axis] and stride == 1:
            return x
        starts = [0] * x.rank
        limits = list(x.shape)
        strides = [1] * x.rank
        starts[axis], limits[axis], strides[axis] = start, limit, stride
        shape = list(x.shape)
        shape[axis] = max(0, -(-(limit - start) // stride))
        return self.g.add("slice", [x], {"start": starts, "limit": limits, "stride": strides},
                          x.dtype, shape, self.hint)

    def squeeze(self, x, axes):
        axes = sorted({a % x.rank for a in axes if x.shape[a % x.rank] == 1}) if x.rank else []
        if not axes:
            return x
        shape = [d for i, d in enumerate(x.shape) if i not in axes]
        return self.g.add("squeeze", [x], {"axes": axes}, x.dtype, shape, self.hint)

    def unsqueeze(self, x, axis):
        axis = axis % (x.rank + 1)
        shape = list(x.shape)
        shape.insert(axis, 1)
        return self.g.add("unsqueeze", [x], {"axes": [axis]}, x.dtype, shape, self.hint)

    def concat(self, xs, axis):
        if len(xs) == 1:
            return xs[0]
        shape = list(xs[0].shape)
        shape[axis] = sum(x.shape[axis] for x in xs)
        return self.g.add("concat", xs, {"axis": axis}, xs[0].dtype, shape, self.hint)

    def unary(self, op, x):
        return self.g.add(op, [x], {}, x.dtype, x.shape, self.hint)

    def binary(self, op, a, b, dtype=None):
        if dtype is None:
            dtype = a.dtype if isinstance(a, Value) else b.dtype
        a, b = self.tensor(a, dtype), self.tensor(b, dtype)
        shape = broadcast_shapes(a.shape, b.shape)
        out_dtype = "bool" if op in ("eq", "ne", "lt", "le", "gt", "ge") else dtype
        return self.g.add(op, [a, b], {}, out_dtype, shape, self.hint)

    def where(self, c, a, b, dtype):
        c = self.tensor(c, "bool")
        a, b = self.tensor(a, dtype), self.tensor(b, dtype)
        shape = broadcast_shapes(broadcast_shapes(c.shape, a.shape), b.shape)
        return self.g.add("where", [c, a, b], {}, dtype, shape, self.hint)

    def reduce(self, op, x, axes, keepdim):
        axes = sorted({a % x.rank for a in axes}) if x.rank else []
        if not axes:
            return x
        shape = [1 if i in axes else d for i, d in enumerate(x.shape) if keepdim or i not in axes]
        return self.g.add(op, [x], {"axes": axes, "keepdim": bool(keepdim)}, x.dtype, shape,
                          self.hint)

    def matmul(self, a, b):
        batch = broadcast_shapes(a.shape[:-2], b.shape[:-2])
        shape = list(batch) + [a.shape[-2], b.shape[-1]]
        return self.g.add("matmul", [a, b], {}, a.dtype, shape, self.hint)

    def gather(self, x, idx, axis):
        shape = list(x.shape[:axis]) + list(idx.shape) + list(x.shape[axis + 1:])
        return self.g.add("gather", [x, idx], {"axis": axis}, x.dtype, shape, self.hint)

    def iota(self, axis, dtype, shape):
        return self.g.add("iota", [], {"axis": axis, "dtype": Dtype(dtype),
                                       "shape": [int(d) for d in shape]}, dtype, shape, self.hint)

    def op(self, op, operands, attrs, dtype, shape):
        return self.g.add(op, operands, attrs, dtype, shape, self.hint)

    # -- the driver --------------------------------------------------------
    def run(self):
        from . import aten_ops
        gm = self.gm
        recorder = _Recorder(gm)
        # A graph that writes its inputs (AOT's copy_ of an updated buffer) runs on
        # copies: the caller's tensors and the bundle's inputs keep their values.
        mutating = any(n.op == "call_function" and _mutates(n) for n in gm.graph.nodes)
        run_inputs = [t.clone() if mutating and isinstance(t, torch.Tensor) else t
                      for t in self.example_inputs]
        with torch.no_grad():
            recorder.run(*run_inputs)
        real = recorder.values

        counts = collections.Counter()
        first = {}
        for n in gm.graph.nodes:
            if n.op == "call_function":
                name = op_name(n.target)
                counts[name] += 1
                first.setdefault(name, n.name)

        problems = collections.OrderedDict()  # op -> [count, first node, reason]

        def refuse(name, node, reason):
            entry = problems.setdefault(name, [0, node.name, reason])
            entry[0] += 1

        live = _live_nodes(gm)
        # Ops without a handler are listed up front, every occurrence counted, so that
        # one refused node does not hide the unsupported ops after it.
        listed = set()
        for n in gm.graph.nodes:
            if n.op != "call_function" or n not in live:
                continue
            name = op_name(n.target)
            if name in aten_ops.HANDLERS or not _has_tensor(real[n]) or _input_write(n):
                continue
            if _is_random(name):
                if self.random == "inputs":
                    continue
                refuse(name, n, "random; convert with random='inputs' to record its values "
                       "as graph inputs")
            else:
                refuse(name, n, "in-place: trace with functionalization" if _mutates(n)
                       else None)
            listed.add(n)
        env = {}
        inputs_seen = 0
        for n in gm.graph.nodes:
            self.hint = n.name
            if n.op == "call_function" and n not in live:
                continue  # nothing the outputs depend on, and no side effect
            if n.op == "placeholder":
                value = real[n]
                index = inputs_seen
                inputs_seen += 1
                if isinstance(value, torch.Tensor):
                    try:
                        dtype = rk_dtype(value.dtype)
                    except Refused as e:
                        refuse("input " + n.name, n, str(e))
                        env[n] = Poison()
                        continue
                    env[n] = self.g.add_input(n.name, dtype, value.shape,
                                              index in self.grad_inputs)
                    self.input_tensors.append(self.example_inputs[index])  # as before the run
                else:
                    env[n] = _python_value(value)
                    self.specialized[n.name] = env[n]
                continue
            if n.op == "get_attr":
                value = real[n]
                if isinstance(value, torch.Tensor) and value.numel() > LIFT_ELEMENTS:
                    # Beyond what reprokit inlines anywhere: an input (a blob) instead.
                    env[n] = self.g.add_input(n.name, rk_dtype(value.dtype), value.shape)
                    self.input_tensors.append(value)
                    self.lifted.append(n.name)
                    continue
                env[n] = self.constant(value) if isinstance(value, torch.Tensor) else value
                continue
            if n.op == "output":
                outputs = n.args[0]
                break
            if n in listed:
                env[n] = Poison()
                continue
            if n.op != "call_function":
                refuse("%s %s" % (n.op, n.target), n,
                       "a Dynamo-level node: trace the graph to ATen first (make_fx)")
                env[n] = Poison()
                continue
            name = op_name(n.target)
            args = torch.fx.node.map_arg(n.args, lambda a: env[a])
            kwargs = torch.fx.node.map_arg(n.kwargs, lambda a: env[a])
            if _has_poison(args) or _has_poison(kwargs):
                env[n] = Poison()
                continue
            out = real[n]
            if _input_write(n):
                # copy_(input, new): the input's new value becomes an output (named
                # after the input), and later reads of the input see it.
                dst = env[n.args[0]]
                new = self.broadcast_to(self.tensor(args[1], dst.dtype), dst.shape)
                self.mutations.append((n.args[0].name, new, out))
                env[n] = env[n.args[0]] = new
                continue
            self._current_op = name
            self._current_real_args = torch.fx.node.map_arg(n.args, lambda a: real[a])
            handler = aten_ops.HANDLERS.get(name)
            if handler is None and _is_random(name):
                env[n] = self._random_as_input(n, out)  # refused ones were listed
                continue
            if handler is None:
                # Size arithmetic on SymInts (operator.mul, sym_size...): specialized.
                env[n] = _python_value(out)
                self.specialized[n.name] = env[n]
                continue
            try:
                result = handler(self, args, kwargs, out)
                _check_type(n, result, out)
                env[n] = result
            except Refused as e:
                refuse(name, n, str(e))
                env[n] = Poison()

        if problems:
            raise UnsupportedOpsError([(op, c, f, r) for op, (c, f, r) in problems.items()])
        flat = outputs if isinstance(outputs, (list, tuple)) else [outputs]
        out_values, out_real, out_map = [], [], []
        for i, o in enumerate(flat):
            if o is None:
                continue
            v = env[o] if isinstance(o, torch.fx.Node) else o
            if isinstance(v, Lazy):
                v = v.get()
            if not isinstance(v, Value):
                continue  # a specialized size or None: not a tensor output
            out_values.append(v)
            out_real.append(real[o])
            out_map.append(i)
        for input_name, value, after in self.mutations:
            out_values.append(value)
            out_real.append(after)
            out_map.append("mutated:" + input_name)
        if not out_values:
            raise UnsupportedOpsError([("output", 1, "output", "the graph returns no tensor")])
        self.g.outputs = out_values
        conv = Converted(self.g, self.input_tensors, out_real, out_map, self.specialized,
                         dict(counts))
        conv.lifted_constants = self.lifted
        return conv

    def _random_as_input(self, n, out):
        values = out if isinstance(out, (tuple, list)) else [out]
        made = []
        for k, t in enumerate(values):
            if not isinstance(t, torch.Tensor):
                made.append(_python_value(t))
                continue
            made.append(self.g.add_input("random_%s%s" % (n.name, "_%d" % k if len(values) > 1
                                                           else ""), rk_dtype(t.dtype), t.shape))
            self.input_tensors.append(t)
        return tuple(made) if isinstance(out, (tuple, list)) else made[0]


def _mutates(n):
    schema = getattr(n.target, "_schema", None)
    if schema is not None and getattr(schema, "is_mutable", False):
        return True
    return op_name(n.target).split(".")[1].endswith("_") if "." in op_name(n.target) else False


def _input_write(n):
    """copy_ of a new value into a graph input (AOT's input mutations)."""
    return (op_name(n.target) == "aten.copy_.default" and isinstance(n.args[0], torch.fx.Node)
            and n.args[0].op == "placeholder")


def _live_nodes(gm):
    """Nodes the output depends on, and in-place ops (refused: their effect is not in the graph)."""
    roots = [n for n in gm.graph.nodes if n.op == "output" or
             (n.op == "call_function" and _mutates(n))]
    live, stack = set(roots), list(roots)
    while stack:
        for m in stack.pop().all_input_nodes:
            if m not in live:
                live.add(m)
                stack.append(m)
    return live


def broadcast_shapes(a, b):
    a, b = list(a), list(b)
    n = max(len(a), len(b))
    a = [1] * (n - len(a)) + a
    b = [1] * (n - len(b)) + b
    out = []
    for x, y in zip(a, b):
        if x != y and x != 1 and y != 1:
            raise Refused("shapes %s and %s do not broadcast" % (a, b))
        out.append(y if x == 1 else x)
    return tuple(out)


def _python_value(v):
    if isinstance(v, (list, tuple, torch.Size)):
        return [_python_value(x) for x in v]
    if isinstance(v, bool) or v is None:
        return v
    if isinstance(v, (torch.SymInt,)) if hasattr(torch, "SymInt") else False:
        return int(v)
    if isinstance(v, int):
        return int(v)
    if isinstance(v, float):
        return float(v)
    return v


def _walk(x):
    if isinstance(x, (list, tuple)):
        for y in x:
            yield from _walk(y)
    elif isinstance(x, dict):
        for y in x.values():
            yield from _walk(y)
    else:
        yield x


def _has_poison(x):
    return any(isinstance(y, Poison) for y in _walk(x))


def _has_tensor(x):
    return any(isinstance(y, torch.Tensor) for y in _walk(x))


def _is_random(name):
    base = name.split(".")[1] if name.count(".") >= 1 else name
    return any(w in base for w in RANDOM_WORDS)


def _check_type(n, result, out):
    """A handler's result must have the type torch computed: else it is our bug."""
    pairs = []
    if isinstance(out, torch.Tensor):
        pairs.append((result, out))
    elif isinstance(out, (tuple, list)) and isinstance(result, (tuple, list)):
        pairs.extend(zip(result, out))
    for r, o in pairs:
        if isinstance(r, Lazy) or not isinstance(o, torch.Tensor) or r is None:
            continue
        if not isinstance(r, Value):
            raise Refused("converter produced %r for a tensor result" % (r,))
        want = (TORCH_TO_RK.get(o.dtype, CARRIED.get(o.dtype)), tuple(o.shape))
        if (r.dtype, r.shape) != want:
            raise Refused("converter bug: made %s, torch gives %s[%s]" % (
                r.type_text(), want[0], ",".join(map(str, want[1]))))


def convert(gm, example_inputs, name="graph", grad_inputs=(), random="refuse"):
    """Converts an ATen-level GraphModule; raises UnsupportedOpsError listing every failure."""
    return Converter(gm, example_inputs, name, grad_inputs, random).run()
