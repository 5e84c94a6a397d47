#!/usr/bin/env python3
"""A small client of the backend protocol (docs/BACKENDS.md), for testing adapters
without the harness: starts a backend, reads its hello, sends one run request
per graph and checks each output against a NumPy float64 evaluation.

  backend_client.py BACKEND GRAPH.rk [GRAPH.rk ...] [--device cpu] [--opt K=V]
                    [--runs 2] [--seed 1] [--expect-failure KIND] [--json]

GRAPH.rk is parsed here (inline literals only) into the graph's JSON form; a
GRAPH.onnx beside it is sent when the backend asks for ONNX. Exit 0 when every
graph matched (or failed as --expect-failure says), 1 on a mismatch or an
unexpected failure, 2 on bad usage, 125 when the backend breaks the protocol.
Used by backends/adapters_test.sh.
"""

import argparse
import json
import math
import os
import re
import subprocess
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.realpath(__file__)))
import reprokit_backend as rb  # noqa: E402

import numpy as np  # noqa: E402

# ---------------------------------------------------------------------------
# .rk text -> the graph's JSON form (inline literals only; no sha256 references)

_TOKEN = re.compile(r"""\s*(?:(//[^\n]*)|(%[A-Za-z0-9_.]+)|(@[A-Za-z0-9_.]+|@"(?:[^"\\]|\\.)*")
    |("(?:[^"\\]|\\.)*")|([+-]?(?:inf|nan)\b|[+-]?(?:\d+\.\d*|\.\d+|\d+)(?:[eE][+-]?\d+)?)
    |([A-Za-z_][A-Za-z0-9_]*)|(.))""", re.X)


def _tokens(text):
    out = []
    pos = 0
    while pos < len(text):
        m = _TOKEN.match(text, pos)
        if not m or m.end() == pos:
            break
        pos = m.end()
        if m.group(1) is not None:
            continue
        for kind, g in zip(("value", "graph", "string", "number", "ident", "punct"), m.groups()[1:]):
            if g is not None:
                out.append((kind, g))
                break
    return out


class _Parser:
    def __init__(self, text):
        self.toks = _tokens(text)
        self.i = 0

    def peek(self):
        return self.toks[self.i][1] if self.i < len(self.toks) else None

    def next(self):
        tok = self.toks[self.i]
        self.i += 1
        return tok

    def expect(self, text):
        kind, tok = self.next()
        if tok != text:
            raise ValueError("expected %r, found %r" % (text, tok))

    def type_(self):
        dtype = self.next()[1]
        self.expect("[")
        dims = []
        while self.peek() != "]":
            dims.append(int(self.next()[1]))
            if self.peek() == ",":
                self.next()
        self.expect("]")
        return dtype, dims

    def attr_value(self):
        kind, tok = self.next()
        if tok == "[":
            ints = []
            while self.peek() != "]":
                ints.append(int(self.next()[1]))
                if self.peek() == ",":
                    self.next()
            self.expect("]")
            return {"ints": ints}
        if tok in ("true", "false"):
            return {"bool": tok == "true"}
        if tok == "dense":
            self.expect("<")
            dtype, dims = self.type_()
            self.expect(">")
            self.expect("[")
            elems = []
            while self.peek() != "]":
                t = self.next()[1]
                elems.append(t == "true" if t in ("true", "false") else float(t))
                if self.peek() == ",":
                    self.next()
            self.expect("]")
            if dtype in ("i32", "i64"):
                elems = [int(e) for e in elems]
            return {"tensor": rb.RawTensor.from_values(dtype, dims, elems)}
        if tok in rb.DTYPE_SIZES:
            return {"dtype": tok}
        if kind == "string":
            return {"string": json.loads(tok)}
        if kind == "number":
            if re.fullmatch(r"[+-]?\d+", tok):
                return {"int": int(tok)}
            v = float(tok)
            return {"float": v if math.isfinite(v) else tok.lstrip("+")}
        raise ValueError("bad attribute value %r" % tok)

    def graph(self):
        self.expect("graph")
        name = self.next()[1][1:].strip('"')
        nodes, names = [], {}

        def add(node_name, op, operands, attrs, dtype, shape):
            nid = len(nodes)
            names[node_name] = nid
            nodes.append({"id": nid, "name": node_name, "op": op, "dtype": dtype, "shape": shape,
                          "operands": operands, "attrs": attrs})

        self.expect("(")
        while self.peek() != ")":
            pname = self.next()[1][1:]
            self.expect(":")
            add(pname, "input", [], {}, *self.type_())
            if self.peek() == ",":
                self.next()
        self.expect(")")
        inputs = list(range(len(nodes)))
        self.expect("{")
        while self.peek() != "return":
            vname = self.next()[1][1:]
            self.expect("=")
            op = self.next()[1]
            self.expect("(")
            operands = []
            while self.peek() != ")":
                operands.append(names[self.next()[1][1:]])
                if self.peek() == ",":
                    self.next()
            self.expect(")")
            attrs = {}
            if self.peek() == "{":
                self.next()
                while self.peek() != "}":
                    key = self.next()[1]
                    self.expect("=")
                    attrs[key] = self.attr_value()
                    if self.peek() == ",":
                        self.next()
                self.expect("}")
            self.expect(":")
            add(vname, op, operands, attrs, *self.type_())
        self.next()
        outputs = [names[self.next()[1][1:]]]
        while self.peek() == ",":
            self.next()
            outputs.append(names[self.next()[1][1:]])
        self.expect("}")
        return {"name": name, "inputs": inputs, "outputs": outputs, "nodes": nodes}


def rk_to_json(text, payload):
    """The JSON form of a .rk text; tensor literals go into `payload` (a
    rb.PayloadBuilder)."""
    graph = _Parser(text).graph()
    for node in graph["nodes"]:
        for key, value in node["attrs"].items():
            if "tensor" in value:
                node["attrs"][key] = {"tensor": payload.add_tensor(value["tensor"])}
    return graph


# ---------------------------------------------------------------------------
# A NumPy float64 evaluation of the graph (floats promoted to f64, as the
# harness's fp64 reference), for the ops the test graphs use.

_FLOATS = ("f16", "bf16", "f32", "f64")
_NP = {"i32": np.int32, "i64": np.int64, "bool": np.bool_}


def _np_dtype(dtype):
    return np.float64 if dtype in _FLOATS else _NP[dtype]


def _erf(x):
    return np.vectorize(math.erf, otypes=[np.float64])(x)


def evaluate_fp64(graph, inputs):
    vals = {}
    for nid, value in zip(graph.inputs, inputs):
        vals[nid] = np.asarray(value).astype(_np_dtype(graph.nodes[nid].dtype))
    for n in graph.nodes:
        if n.op == "input":
            continue
        a = [vals[o] for o in n.operands]
        at = n.attrs
        dt = _np_dtype(n.dtype)
        op = n.op
        with np.errstate(all="ignore"):
            if op == "constant":
                r = np.asarray(at["value"]).astype(dt)
            elif op == "full":
                r = np.full(n.shape, at["value"]).astype(dt)
            elif op == "iota":
                shape = [1] * len(n.shape)
                shape[at["axis"]] = n.shape[at["axis"]]
                r = np.broadcast_to(np.arange(n.shape[at["axis"]]).reshape(shape), n.shape).astype(dt)
            elif op in ("neg", "abs", "exp", "log", "sqrt", "tanh", "sin", "cos", "floor", "ceil"):
                r = getattr(np, {"neg": "negative", "abs": "abs"}.get(op, op))(a[0])
            elif op == "rsqrt":
                r = 1.0 / np.sqrt(a[0])
            elif op == "reciprocal":
                r = 1.0 / a[0]
            elif op == "sigmoid":
                r = 1.0 / (1.0 + np.exp(-a[0]))
            elif op == "relu":
                r = np.where(a[0] > 0, a[0], np.where(np.isnan(a[0]), a[0], 0))
            elif op == "erf":
                r = _erf(a[0])
            elif op == "round":
                r = np.round(a[0])
            elif op == "clip":
                r = a[0]
                if "min" in at:
                    r = np.maximum(r, at["min"])
                if "max" in at:
                    r = np.minimum(r, at["max"])
            elif op in ("add", "sub", "mul", "div", "pow", "maximum", "minimum", "mod", "floordiv"):
                f = {"add": np.add, "sub": np.subtract, "mul": np.multiply, "div": np.divide,
                     "pow": np.power, "maximum": np.maximum, "minimum": np.minimum,
                     "mod": np.mod, "floordiv": np.floor_divide}[op]
                r = f(a[0], a[1])
            elif op in ("eq", "ne", "lt", "le", "gt", "ge"):
                r = getattr(np, {"eq": "equal", "ne": "not_equal", "lt": "less", "le": "less_equal",
                                 "gt": "greater", "ge": "greater_equal"}[op])(a[0], a[1])
            elif op in ("and", "or"):
                r = (np.logical_and if op == "and" else np.logical_or)(a[0], a[1])
            elif op == "not":
                r = np.logical_not(a[0])
            elif op == "where":
                r = np.where(a[0], a[1], a[2])
            elif op == "cast":
                r = a[0]
                if dt is not np.float64 and r.dtype == np.float64:
                    r = np.trunc(np.nan_to_num(r, nan=0, posinf=0, neginf=0))
                r = r.astype(dt)
            elif op in ("reduce_sum", "reduce_mean", "reduce_max", "reduce_min"):
                f = {"reduce_sum": np.sum, "reduce_mean": np.mean, "reduce_max": np.max,
                     "reduce_min": np.min}[op]
                r = f(a[0], axis=tuple(at["axes"]), keepdims=at["keepdim"])
            elif op == "argmax":
                r = np.argmax(a[0], axis=at["axis"])
                if at["keepdim"]:
                    r = np.expand_dims(r, at["axis"])
            elif op == "cumsum":
                x = np.flip(a[0], at["axis"]) if at.get("reverse") else a[0]
                r = np.cumsum(x, axis=at["axis"])
                if at.get("exclusive"):
                    r = r - x
                if at.get("reverse"):
                    r = np.flip(r, at["axis"])
            elif op == "reshape":
                r = a[0].reshape(at["shape"])
            elif op == "broadcast_to":
                r = np.broadcast_to(a[0], at["shape"])
            elif op == "transpose":
                r = np.transpose(a[0], at["perm"])
            elif op == "slice":
                r = a[0][tuple(slice(s, l, st) for s, l, st in
                               zip(at["start"], at["limit"], at["stride"]))]
            elif op == "concat":
                r = np.concatenate(a, axis=at["axis"])
            elif op == "squeeze":
                r = np.squeeze(a[0], axis=tuple(at["axes"]))
            elif op == "unsqueeze":
                r = a[0].reshape(n.shape)
            elif op == "pad":
                rank = a[0].ndim
                pads = at["pads"]
                r = np.pad(a[0], [(pads[i], pads[i + rank]) for i in range(rank)],
                           constant_values=at.get("value", 0.0))
            elif op == "matmul":
                r = np.matmul(a[0], a[1])
            elif op == "gather":
                idx = a[1].astype(np.int64)
                size = a[0].shape[at["axis"]]
                idx = np.where(idx < 0, idx + size, idx)
                ok = (idx >= 0) & (idx < size)
                r = np.take(a[0], np.where(ok, idx, 0), axis=at["axis"])
                mask = ok.reshape((1,) * at["axis"] + ok.shape + (1,) * (a[0].ndim - at["axis"] - 1))
                r = np.where(mask, r, 0)
            elif op == "gelu":
                r = 0.5 * a[0] * (1.0 + _erf(a[0] / math.sqrt(2.0)))
            elif op in ("softmax", "log_softmax"):
                x = a[0] - np.max(a[0], axis=at["axis"], keepdims=True)
                s = np.sum(np.exp(x), axis=at["axis"], keepdims=True)
                r = np.exp(x) / s if op == "softmax" else x - np.log(s)
            elif op == "layer_norm":
                m = np.mean(a[0], axis=-1, keepdims=True)
                v = np.mean((a[0] - m) ** 2, axis=-1, keepdims=True)
                r = (a[0] - m) / np.sqrt(v + at["eps"]) * a[1] + a[2]
            elif op == "rms_norm":
                ms = np.mean(a[0] ** 2, axis=-1, keepdims=True)
                r = a[0] / np.sqrt(ms + at["eps"]) * a[1]
            else:
                raise NotImplementedError("no NumPy reference for op %s" % op)
        vals[n.id] = np.asarray(r).astype(dt).reshape(n.shape)
    return [vals[o] for o in graph.outputs]


def seeded_inputs(graph, seed):
    rng = np.random.default_rng(seed)
    out = []
    for nid in graph.inputs:
        n = graph.nodes[nid]
        if n.dtype in _FLOATS:
            v = rng.uniform(-2.0, 2.0, n.shape).astype(np.float32)
            if n.dtype == "bf16":  # values a bf16 holds exactly
                v = (v.view(np.uint32) & 0xFFFF0000).view(np.float32)
            elif n.dtype == "f16":
                v = v.astype(np.float16)
            elif n.dtype == "f64":
                v = v.astype(np.float64)
        elif n.dtype == "bool":
            v = rng.integers(0, 2, n.shape).astype(np.bool_)
        else:  # small, and negative too: gather's negative indices count from the end
            v = rng.integers(-4, 4, n.shape).astype(_NP[n.dtype])
        out.append(v)
    return out


_TOLERANCE = {"f64": (1e-9, 1e-9), "f32": (1e-4, 1e-5), "f16": (1e-2, 1e-3),
              "bf16": (2e-2, 1e-2)}


def close_enough(got, want, dtype, precision):
    """allclose to fp64 at the tolerance of `precision`, the least precise float
    dtype of the graph (an f32 output computed through bf16 is judged as bf16)."""
    got = np.asarray(got, dtype=np.float64) if dtype in _FLOATS else np.asarray(got)
    if dtype not in _FLOATS:
        return bool(np.array_equal(got, want)), 0.0
    rtol, atol = _TOLERANCE[precision]
    err = float(np.nanmax(np.abs(got - want), initial=0.0))
    return bool(np.allclose(got, want, rtol=rtol, atol=atol, equal_nan=True)), err


# ---------------------------------------------------------------------------
# The client

class BackendProcess:
    def __init__(self, command, start_timeout=300):
        self.proc = subprocess.Popen(command, stdin=subprocess.PIPE, stdout=subprocess.PIPE)
        started = time.monotonic()
        frame = rb.read_frame(self.proc.stdout)
        self.start_seconds = time.monotonic() - started
        if frame is None:
            raise rb.ProtocolError("the backend exited before its hello (status %s)"
                                   % self.proc.wait())
        self.hello = frame[0]
        if self.hello.get("type") != "hello" or self.hello.get("protocol") != rb.PROTOCOL_VERSION:
            raise rb.ProtocolError("not a protocol-1 hello: %r" % self.hello)
        self.next_id = 1

    def run(self, rk_text, graph_json, payload, input_descs, onnx_desc, device, runs, options):
        formats = self.hello.get("graph_formats", ["rk"])
        graph = {"rk": rk_text}
        if "json" in formats:
            graph["json"] = graph_json
        if "onnx" in formats:
            if onnx_desc is None:
                raise ValueError("the backend asks for ONNX and there is no .onnx beside the graph")
            graph["onnx"] = onnx_desc
        header = {"type": "run", "id": self.next_id, "device": device, "runs": runs,
                  "options": options, "graph": graph, "inputs": input_descs}
        self.next_id += 1
        rb.write_frame(self.proc.stdin, header, payload)
        phases = []
        while True:
            frame = rb.read_frame(self.proc.stdout)
            if frame is None:
                raise rb.ProtocolError("the backend exited during a run (status %s)"
                                       % self.proc.wait())
            reply, reply_payload = frame
            if reply["type"] == "phase":
                phases.append(reply["name"])
                continue
            return reply, reply_payload, phases

    def close(self):
        try:
            rb.write_frame(self.proc.stdin, {"type": "shutdown"})
            self.proc.stdin.close()
        except BrokenPipeError:
            pass
        return self.proc.wait(timeout=60)


def main(argv):
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("backend")
    p.add_argument("graphs", nargs="+")
    p.add_argument("--device", default="cpu")
    p.add_argument("--opt", action="append", default=[])
    p.add_argument("--runs", type=int, default=2)
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--expect-failure", default=None)
    p.add_argument("--json", action="store_true", help="one JSON line per graph")
    args = p.parse_args(argv)
    options = {}
    for item in args.opt:
        if "=" not in item:
            print("backend_client: --opt %r is not KEY=VALUE" % item, file=sys.stderr)
            return 2
        k, v = item.split("=", 1)
        options[k] = v
    try:
        backend = BackendProcess([args.backend])
    except (rb.ProtocolError, OSError) as e:
        print("backend_client: %s: %s" % (args.backend, e), file=sys.stderr)
        return 125
    hello = backend.hello
    print("hello: %s, %s, start %.2f s, ops %d, formats %s" % (
        hello["name"], hello["version"], backend.start_seconds, len(hello.get("ops", [])),
        ",".join(hello.get("graph_formats", []))))
    status = 0
    for path in args.graphs:
        with open(path) as f:
            rk_text = f.read()
        payload = rb.PayloadBuilder()
        graph_json = rk_to_json(rk_text, payload)
        graph = rb.decode_graph(graph_json, payload.getvalue())
        name = os.path.basename(path)
        ops = hello.get("ops", ["*"])
        undeclared = sorted({n.op for n in graph.nodes if n.op != "input" and "*" not in ops
                             and n.op not in ops} |
                            {n.dtype for n in graph.nodes if n.dtype not in hello.get("dtypes", [])})
        if undeclared:
            print("%s: not sent, the hello does not declare %s (cannot_judge)"
                  % (name, ", ".join(undeclared)))
            continue
        inputs = seeded_inputs(graph, args.seed)
        descs = []
        for nid, value in zip(graph.inputs, inputs):
            d = payload.add_tensor(value, graph.nodes[nid].dtype)
            d["name"] = graph.nodes[nid].name
            descs.append(d)
        onnx_path = os.path.splitext(path)[0] + ".onnx"
        onnx_desc = None
        if os.path.exists(onnx_path):
            with open(onnx_path, "rb") as f:
                onnx_desc = payload.add_bytes(f.read())
        started = time.monotonic()
        try:
            reply, reply_payload, phases = backend.run(
                rk_text, graph_json, payload.getvalue(), descs, onnx_desc, args.device,
                args.runs, options)
        except (rb.ProtocolError, OSError) as e:
            print("%s: backend broke the protocol: %s" % (path, e))
            return 125
        seconds = time.monotonic() - started
        if reply["type"] == "failure":
            ok = args.expect_failure == reply["kind"]
            print("%s: %s %s: %s" % (name, "ok, expected" if ok else "FAIL", reply["kind"],
                                     reply["message"].strip().splitlines()[-1:]))
            status = status if ok else 1
            continue
        if args.expect_failure:
            print("%s: FAIL: expected %s, got a result" % (name, args.expect_failure))
            status = 1
            continue
        want = evaluate_fp64(graph, inputs)
        floats = [n.dtype for n in graph.nodes if n.dtype in _FLOATS]
        precision = max(floats or ["f64"], key=lambda d: _TOLERANCE[d][0])
        worst = 0.0
        problems = []
        for r, outputs in enumerate(reply["runs"]):
            if len(outputs) != len(graph.outputs):
                problems.append("run %d has %d outputs, expected %d"
                                % (r, len(outputs), len(graph.outputs)))
                continue
            for i, (desc, nid) in enumerate(zip(outputs, graph.outputs)):
                node = graph.nodes[nid]
                if desc["dtype"] != node.dtype or list(desc["shape"]) != node.shape:
                    problems.append("output %d is %s%s, expected %s%s" % (
                        i, desc["dtype"], desc["shape"], node.dtype, node.shape))
                    continue
                got = rb.decode_tensor(desc, reply_payload)
                ok, err = close_enough(got, want[i], node.dtype, precision)
                worst = max(worst, err)
                if not ok:
                    problems.append("output %d (%s) differs from fp64 by up to %g"
                                    % (i, node.name, err))
        line = {"graph": name, "ok": not problems, "seconds": round(seconds, 4),
                "compile_seconds": reply.get("compile_seconds"),
                "run_seconds": reply.get("run_seconds"), "phases": phases,
                "max_abs_error": worst, "problems": problems}
        if args.json:
            print(json.dumps(line))
        else:
            print("%s: %s (%.3f s round trip, compile %s s, max |err| %.3g)%s" % (
                name, "ok" if not problems else "FAIL", seconds, reply.get("compile_seconds"),
                worst, "".join("\n  " + pr for pr in problems)))
        if problems:
            status = 1
    code = backend.close()
    if code != 0:
        print("backend exited with status %s after shutdown" % code)
        status = status or 1
    return status


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
