#!/usr/bin/python3
"""Tests of the backend protocol library (reprokit_backend.py) and of the
deliberately broken backend (backends/testing/broken_backend): frames,
tensors (numpy and raw paths, f16/bf16/bool), the graph's JSON form, the serve
loop over in-memory pipes, and the broken backend's modes as a real subprocess.
Needs only python3 (numpy optional: without it the numpy cases skip).
"""

import io
import json
import math
import os
import signal
import struct
import subprocess
import sys
import tempfile
import unittest

HERE = os.path.dirname(os.path.realpath(__file__))
sys.path.insert(0, HERE)
import reprokit_backend as rb  # noqa: E402

BROKEN = os.path.join(HERE, "..", "testing", "broken_backend")
HAVE_NUMPY = rb.have_numpy()
if HAVE_NUMPY:
    import numpy as np


def frame_bytes(header, payload=b""):
    out = io.BytesIO()
    rb.write_frame(out, header, payload)
    return out.getvalue()


def read_all_frames(data):
    stream = io.BytesIO(data)
    frames = []
    while True:
        f = rb.read_frame(stream)
        if f is None:
            return frames
        frames.append(f)


class FrameTest(unittest.TestCase):
    def test_round_trip(self):
        data = frame_bytes({"type": "x", "n": [1, 2]}, b"\x00\x01payload")
        self.assertEqual(data[:4], b"RKBP")
        header_len, payload_len = struct.unpack("<IQ", data[4:16])
        self.assertEqual(payload_len, 9)
        self.assertEqual(len(data), 16 + header_len + 9)
        frames = read_all_frames(data + frame_bytes({"type": "y"}))
        self.assertEqual(frames, [({"type": "x", "n": [1, 2]}, b"\x00\x01payload"),
                                  ({"type": "y"}, b"")])

    def test_clean_eof_is_none(self):
        self.assertIsNone(rb.read_frame(io.BytesIO(b"")))

    def test_bad_frames_are_protocol_errors(self):
        good = frame_bytes({"type": "x"}, b"abcd")
        cases = {
            "bad magic": b"XXXX" + good[4:],
            "truncated prefix": good[:10],
            "truncated header": good[:18],
            "truncated payload": good[:-1],
            "over the limit": struct.pack("<4sIQ", b"RKBP", (64 << 20) + 1, 0),
            "not JSON": struct.pack("<4sIQ", b"RKBP", 3, 0) + b"{x}",
            "not an object": struct.pack("<4sIQ", b"RKBP", 2, 0) + b"[]",
            "no type": struct.pack("<4sIQ", b"RKBP", 2, 0) + b"{}",
        }
        for what, data in cases.items():
            with self.subTest(what):
                with self.assertRaises(rb.ProtocolError):
                    rb.read_frame(io.BytesIO(data))

    def test_nan_in_header_refused(self):
        with self.assertRaises(ValueError):
            frame_bytes({"type": "x", "v": math.nan})


class RawTensorTest(unittest.TestCase):
    def test_round_trips_every_dtype(self):
        cases = {"f32": [1.5, -0.0, math.inf], "f64": [0.1, -2.0], "i32": [-7, 2 ** 31 - 1],
                 "i64": [-(2 ** 63), 5], "bool": [True, False, True], "f16": [65504.0, -0.5],
                 "bf16": [1.0, -3.0, math.inf]}
        for dtype, values in cases.items():
            with self.subTest(dtype):
                t = rb.RawTensor.from_values(dtype, [len(values)], values)
                self.assertEqual(len(t.data), len(values) * rb.DTYPE_SIZES[dtype])
                desc = {"dtype": dtype, "shape": [len(values)], "offset": 0, "size": len(t.data)}
                back = rb.decode_tensor(desc, t.data, use_numpy=False)
                self.assertEqual(back.values(), values)

    def test_bf16_bits_and_rounding(self):
        # 1.0 is 0x3f80; 1 + 2^-8 is a tie between 0x3f80 and 0x3f81 and rounds to even.
        t = rb.RawTensor.from_values("bf16", [3], [1.0, 1.0 + 2 ** -8, 1.0 + 3 * 2 ** -8])
        self.assertEqual(struct.unpack("<3H", t.data), (0x3F80, 0x3F80, 0x3F82))
        nan = rb.RawTensor.from_values("bf16", [1], [math.nan])
        self.assertTrue(math.isnan(nan.values()[0]))

    def test_bool_is_one_byte(self):
        t = rb.RawTensor.from_values("bool", [2], [True, False])
        self.assertEqual(t.data, b"\x01\x00")

    def test_bad_descriptors(self):
        payload = b"\x00" * 16
        bad = [{"dtype": "f32", "shape": [4], "offset": 4, "size": 16},  # past the end
               {"dtype": "f32", "shape": [3], "offset": 0, "size": 16},  # size mismatch
               {"dtype": "u8", "shape": [4], "offset": 0, "size": 4},  # unknown dtype
               {"dtype": "f32", "shape": [-4], "offset": 0, "size": 16},
               {"dtype": "f32", "offset": 0, "size": 16}]
        for desc in bad:
            with self.subTest(desc=desc):
                with self.assertRaises(rb.ProtocolError):
                    rb.decode_tensor(desc, payload, use_numpy=False)


@unittest.skipUnless(HAVE_NUMPY, "numpy not installed")
class NumpyTensorTest(unittest.TestCase):
    def test_round_trips(self):
        arrays = [np.arange(6, dtype=np.float32).reshape(2, 3), np.array([0.1, -2.0]),
                  np.array([[1, -2]], dtype=np.int32), np.array([2 ** 40], dtype=np.int64),
                  np.array([True, False]), np.array([65504.0, 6e-08], dtype=np.float16),
                  np.zeros((0, 3), dtype=np.float32), np.float32(3.5).reshape(())]
        for a in arrays:
            with self.subTest(dtype=str(a.dtype), shape=a.shape):
                desc, data = rb.encode_tensor(a)
                self.assertEqual(desc["shape"], list(a.shape))
                back = rb.decode_tensor(desc, data)
                self.assertEqual(back.dtype, a.dtype)
                np.testing.assert_array_equal(back, a)

    def test_bf16_matches_the_raw_path(self):
        values = [1.0, 1.0 + 2 ** -8, 1.0 + 3 * 2 ** -8, -0.0, math.inf, -math.inf, 3.0e38,
                  1e-40]
        desc, data = rb.encode_tensor(np.array(values, dtype=np.float32), "bf16")
        self.assertEqual(desc["dtype"], "bf16")
        self.assertEqual(data, rb.RawTensor.from_values("bf16", [len(values)], values).data)
        back = rb.decode_tensor(desc, data)
        self.assertEqual(back.dtype, np.float32)
        self.assertEqual(back[1], 1.0)
        self.assertEqual(back[2], 1.0 + 2 ** -6)
        nan_desc, nan_data = rb.encode_tensor(np.array([np.nan], dtype=np.float32), "bf16")
        self.assertTrue(np.isnan(rb.decode_tensor(nan_desc, nan_data)[0]))

    def test_every_bf16_pattern_round_trips(self):
        bits = np.arange(1 << 16, dtype=np.uint16)
        desc = {"dtype": "bf16", "shape": [1 << 16], "offset": 0, "size": 1 << 17}
        widened = rb.decode_tensor(desc, bits.tobytes())
        _, data = rb.encode_tensor(widened, "bf16")
        back = np.frombuffer(data, dtype="<u2")
        finite = ~np.isnan(widened)
        np.testing.assert_array_equal(back[finite], bits[finite])

    def test_named_dtype_converts(self):
        desc, data = rb.encode_tensor(np.array([1.9, -1.9]), "i32")
        self.assertEqual(struct.unpack("<2i", data), (1, -1))


def sample_graph_json(payload):
    const = payload.add_tensor(rb.RawTensor.from_values("f32", [2], [1.5, -2.0]))
    return {"name": "g", "inputs": [0], "outputs": [3, 2],
            "nodes": [
                {"id": 0, "name": "x", "op": "input", "dtype": "f32", "shape": [2],
                 "operands": [], "attrs": {}},
                {"id": 1, "name": "c", "op": "constant", "dtype": "f32", "shape": [2],
                 "operands": [], "attrs": {"value": {"tensor": const}}},
                {"id": 2, "name": "s", "op": "add", "dtype": "f32", "shape": [2],
                 "operands": [0, 1], "attrs": {}},
                {"id": 3, "name": "r", "op": "reduce_sum", "dtype": "f32", "shape": [1],
                 "operands": [2], "attrs": {"axes": {"ints": [0]}, "keepdim": {"bool": True},
                                            "lo": {"float": "-inf"}, "n": {"int": 3},
                                            "t": {"dtype": "bf16"}, "s": {"string": "a\"b"}}}]}


class GraphJsonTest(unittest.TestCase):
    def test_decodes_nodes_and_attributes(self):
        payload = rb.PayloadBuilder()
        g = rb.decode_graph(sample_graph_json(payload), payload.getvalue(), use_numpy=False)
        self.assertEqual([n.op for n in g.nodes], ["input", "constant", "add", "reduce_sum"])
        self.assertEqual(g.inputs, [0])
        self.assertEqual(g.outputs, [3, 2])
        attrs = g.nodes[3].attrs
        self.assertEqual(attrs["axes"], [0])
        self.assertIs(attrs["keepdim"], True)
        self.assertEqual(attrs["lo"], -math.inf)
        self.assertEqual(attrs["n"], 3)
        self.assertIsInstance(attrs["t"], rb.DType)
        self.assertEqual(attrs["t"], "bf16")
        self.assertEqual(attrs["s"], 'a"b')
        self.assertEqual(g.nodes[1].attrs["value"].values(), [1.5, -2.0])
        self.assertEqual(g.ops(), ["add", "constant", "input", "reduce_sum"])

    def test_rejects_broken_graphs(self):
        payload = rb.PayloadBuilder()
        base = sample_graph_json(payload)
        mutations = {
            "forward operand": lambda g: g["nodes"][2].update(operands=[0, 3]),
            "id not position": lambda g: g["nodes"][1].update(id=5),
            "missing output": lambda g: g.update(outputs=[9]),
            "attr kind": lambda g: g["nodes"][3]["attrs"].update(x={"weird": 1}),
            "no shape": lambda g: g["nodes"][2].pop("shape"),
        }
        for what, mutate in mutations.items():
            with self.subTest(what):
                g = json.loads(json.dumps(base))
                mutate(g)
                with self.assertRaises(rb.ProtocolError):
                    rb.decode_graph(g, payload.getvalue(), use_numpy=False)


def run_request(request_id, graph_json, payload, inputs):
    """(header, payload) of a run request over graph_json with RawTensor inputs."""
    descs = [payload.add_tensor(t) for t in inputs]
    header = {"type": "run", "id": request_id, "device": "cpu", "runs": 2,
              "options": {"k": "v"}, "graph": {"rk": "graph @g() {}", "json": graph_json},
              "inputs": descs}
    return header


class ServeTest(unittest.TestCase):
    def serve(self, requests, handler, use_numpy=False):
        stdin = io.BytesIO(b"".join(requests))
        stdout = io.BytesIO()
        log = io.StringIO()
        hello = rb.make_hello("t", "t 1", ops=["add"])
        code = rb.serve(hello, handler, stdin=stdin, stdout=stdout, use_numpy=use_numpy, log=log)
        return code, read_all_frames(stdout.getvalue()), log.getvalue()

    def test_hello_run_phase_result_shutdown(self):
        payload = rb.PayloadBuilder()
        g = sample_graph_json(payload)
        x = rb.RawTensor.from_values("f32", [2], [1.0, 2.0])
        header = run_request(7, g, payload, [x])
        seen = []

        def handler(request, phase):
            seen.append(request)
            phase("compile")
            vals = [a + b for a, b in zip(request.inputs[0].values(),
                                           request.graph.nodes[1].attrs["value"].values())]
            out = [rb.RawTensor.from_values("f32", [1], [sum(vals)]),
                   rb.RawTensor.from_values("f32", [2], vals)]
            return rb.Result([out, out], compile_seconds=0.5)

        code, frames, _ = self.serve(
            [frame_bytes(header, payload.getvalue()), frame_bytes({"type": "shutdown"}),
             frame_bytes(header, payload.getvalue())], handler)
        self.assertEqual(code, 0)
        self.assertEqual(len(seen), 1, "nothing runs after shutdown")
        req = seen[0]
        self.assertEqual((req.id, req.device, req.runs, req.options), (7, "cpu", 2, {"k": "v"}))
        self.assertEqual(req.rk, "graph @g() {}")
        self.assertEqual([f[0]["type"] for f in frames], ["hello", "phase", "result"])
        hello = frames[0][0]
        self.assertEqual((hello["protocol"], hello["name"], hello["ops"]), (1, "t", ["add"]))
        self.assertEqual(frames[1][0], {"type": "phase", "id": 7, "name": "compile"})
        result, result_payload = frames[2]
        self.assertEqual(result["id"], 7)
        self.assertEqual(result["compile_seconds"], 0.5)
        self.assertEqual(len(result["runs"]), 2)
        first = [rb.decode_tensor(d, result_payload, use_numpy=False).values()
                 for d in result["runs"][0]]
        self.assertEqual(first, [[2.5], [2.5, 0.0]])

    def test_failures_and_eof(self):
        payload = rb.PayloadBuilder()
        header = run_request(1, sample_graph_json(payload), payload,
                             [rb.RawTensor.from_values("f32", [2], [0.0, 0.0])])
        frame = frame_bytes(header, payload.getvalue())
        errors = [rb.CompileError("no kernel for add"), rb.Unsupported("no"),
                  ZeroDivisionError("boom"), rb.RunError("device lost")]

        def handler(request, phase):
            raise errors.pop(0)

        code, frames, _ = self.serve([frame] * 4, handler)  # then end of input
        self.assertEqual(code, 0)
        kinds = [(f[0]["type"], f[0].get("kind")) for f in frames[1:]]
        self.assertEqual(kinds, [("failure", "compile_error"), ("failure", "unsupported"),
                                 ("failure", "runtime_error"), ("failure", "runtime_error")])
        self.assertEqual(frames[1][0]["message"], "no kernel for add")
        self.assertIn("ZeroDivisionError: boom", frames[3][0]["message"])

    def test_undecodable_request_is_unsupported_and_bad_frame_ends(self):
        bad = {"type": "run", "id": 3, "graph": {"json": {"nodes": "x"}}, "inputs": []}
        code, frames, log = self.serve(
            [frame_bytes(bad), frame_bytes({"type": "ping"}), b"JUNKJUNKJUNKJUNK"],
            lambda r, p: self.fail("handler called"))
        self.assertEqual(code, 2)
        self.assertEqual(frames[1][0]["kind"], "unsupported")
        self.assertIn("ignoring a 'ping'", log)
        self.assertIn("bad magic", log)

    @unittest.skipUnless(HAVE_NUMPY, "numpy not installed")
    def test_arrays_take_the_graphs_output_dtypes(self):
        payload = rb.PayloadBuilder()
        g = sample_graph_json(payload)
        g["nodes"][3]["dtype"] = "bf16"
        header = run_request(2, g, payload, [np.array([1.0, 2.0], dtype=np.float32)])

        def handler(request, phase):
            self.assertEqual(request.inputs[0].dtype, np.float32)
            out = [np.array([1.0 + 2 ** -8], dtype=np.float32), np.array([1.0, 2.0])]
            return [out, out]

        code, frames, _ = self.serve([frame_bytes(header, payload.getvalue())], handler,
                                     use_numpy=True)
        result, result_payload = frames[1]
        self.assertEqual([d["dtype"] for d in result["runs"][0]], ["bf16", "f32"])
        self.assertEqual(result_payload[:2], struct.pack("<H", 0x3F80))


def start_broken(mode, env_extra=None):
    env = dict(os.environ, BROKEN_BACKEND_MODE=mode)
    env.update(env_extra or {})
    return subprocess.Popen([BROKEN], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, env=env)


def elementwise_request(request_id=1, runs=2):
    payload = rb.PayloadBuilder()
    x = payload.add_tensor(rb.RawTensor.from_values("f32", [2, 2], [1.0, -2.0, 3.0, -4.0]))
    y = payload.add_tensor(rb.RawTensor.from_values("f32", [2], [0.5, 0.5]))
    node = lambda i, name, op, shape, ops: {"id": i, "name": name, "op": op, "dtype": "f32",
                                             "shape": shape, "operands": ops, "attrs": {}}
    g = {"name": "g", "inputs": [0, 1], "outputs": [3, 2],
         "nodes": [node(0, "x", "input", [2, 2], []), node(1, "y", "input", [2], []),
                   node(2, "a", "add", [2, 2], [0, 1]), node(3, "r", "relu", [2, 2], [2])]}
    header = {"type": "run", "id": request_id, "device": "cpu", "runs": runs, "options": {},
              "graph": {"rk": "", "json": g}, "inputs": [x, y]}
    return frame_bytes(header, payload.getvalue())


class BrokenBackendTest(unittest.TestCase):
    """The broken backend misbehaves exactly as its mode says."""

    def exchange(self, mode, requests=1, env_extra=None):
        proc = start_broken(mode, env_extra)
        out, err = proc.communicate(b"".join(elementwise_request(i + 1) for i in range(requests)),
                                    timeout=60)
        return proc.returncode, out, err

    def results(self, out):
        frames = read_all_frames(out)
        self.assertEqual(frames[0][0]["type"], "hello")
        return frames[0][0], frames[1:]

    def first_run(self, frames):
        result, payload = [f for f in frames if f[0]["type"] == "result"][0]
        return [[rb.decode_tensor(d, payload, use_numpy=False) for d in run]
                for run in result["runs"]]

    def test_ok(self):
        code, out, _ = self.exchange("ok")
        self.assertEqual(code, 0)
        hello, frames = self.results(out)
        self.assertEqual(hello["protocol"], 1)
        self.assertEqual([f[0]["type"] for f in frames], ["phase", "phase", "result"])
        runs = self.first_run(frames)
        self.assertEqual(len(runs), 2)
        self.assertEqual(runs[0][0].values(), [1.5, 0.0, 3.5, 0.0])
        self.assertEqual(runs[0][1].values(), [1.5, -1.5, 3.5, -3.5])
        self.assertEqual(runs[0][0].data, runs[1][0].data)

    def test_relu_bug_and_nondeterministic(self):
        runs = self.first_run(self.results(self.exchange("relu_bug")[1])[1])
        self.assertEqual(runs[0][0].values(), [1.5, -1.5, 3.5, -3.5])
        runs = self.first_run(self.results(self.exchange("nondeterministic")[1])[1])
        self.assertNotEqual(runs[0][0].data, runs[1][0].data)

    def test_wrong_results(self):
        runs = self.first_run(self.results(self.exchange("wrong_outputs")[1])[1])
        self.assertEqual(len(runs[0]), 3)
        runs = self.first_run(self.results(self.exchange("wrong_shape")[1])[1])
        self.assertEqual(runs[0][0].shape, (1, 2, 2))
        runs = self.first_run(self.results(self.exchange("wrong_dtype")[1])[1])
        self.assertEqual(runs[0][0].dtype, "f64")

    def test_stderr_flood(self):
        code, out, err = self.exchange("stderr_flood")
        self.assertEqual(code, 0)
        self.assertGreaterEqual(len(err), 1 << 20)
        self.assertEqual(len(self.first_run(self.results(out)[1])), 2)

    def test_bad_starts(self):
        code, out, err = self.exchange("die_at_start")
        self.assertEqual((code, out), (3, b""))
        self.assertIn(b"dying at start", err)
        hello, _ = self.results(self.exchange("wrong_version")[1])
        self.assertEqual(hello["protocol"], 99)
        for mode, error in [("garbage", "bad magic"), ("bad_header", "not JSON"),
                            ("huge_header", "over the")]:
            with self.subTest(mode):
                with self.assertRaisesRegex(rb.ProtocolError, error):
                    read_all_frames(self.exchange(mode)[1])

    def test_segv_and_crash_once(self):
        code, out, err = self.exchange("segv")
        self.assertEqual(code, -signal.SIGSEGV)
        self.assertIn(b"about to crash", err)
        with tempfile.TemporaryDirectory() as tmp:
            state = {"BROKEN_BACKEND_STATE": os.path.join(tmp, "crashed")}
            code, _, _ = self.exchange("crash_once", env_extra=state)
            self.assertEqual(code, -signal.SIGSEGV)
            code, out, _ = self.exchange("crash_once", requests=2, env_extra=state)
            self.assertEqual(code, 0)
            frames = self.results(out)[1]
            self.assertEqual([f[0]["id"] for f in frames if f[0]["type"] == "result"], [1, 2])

    def test_hang_and_no_hello_stay_silent(self):
        for mode, expect in [("hang", ["hello", "phase"]), ("no_hello", [])]:
            with self.subTest(mode):
                proc = start_broken(mode)
                try:
                    proc.stdin.write(elementwise_request())
                    proc.stdin.flush()
                    with self.assertRaises(subprocess.TimeoutExpired):
                        proc.wait(timeout=3)
                finally:
                    proc.kill()
                    out = proc.stdout.read()
                    proc.wait()
                    for stream in (proc.stdin, proc.stdout, proc.stderr):
                        stream.close()
                self.assertEqual([f[0]["type"] for f in read_all_frames(out)], expect)


if __name__ == "__main__":
    unittest.main()
