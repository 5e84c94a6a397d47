"""The reprokit backend protocol (docs/BACKENDS.md, version 1) for backend authors.

An external backend is an executable that reads run requests on stdin and writes
replies on stdout, one length-prefixed frame each. This module holds what every
backend needs and nothing backend-specific:

  - frames: read_frame / write_frame (magic RKBP, u32 header length, u64 payload
    length, JSON header, payload), with ProtocolError for anything that is not one;
  - tensors: decode_tensor / encode_tensor between a header's tensor descriptor
    plus the payload and numpy arrays (bf16 travels as its 16-bit patterns and
    decodes to float32 by a shift, no ml_dtypes needed), or RawTensor (dtype,
    shape, bytes) where numpy is absent or not wanted;
  - the graph's JSON form decoded into plain objects (Graph, Node), attribute
    values as Python values;
  - serve(hello, handle_run): the request loop. It sends the hello, decodes each
    run request into a Request, calls the handler, and writes its result or the
    failure it raised (CompileError, RunError, Unsupported; any other exception
    is a runtime_error with its traceback); a shutdown message or end of input
    ends the loop.

Works with Python 3.11 and later, with or without numpy. Tested by
reprokit_backend_test.py beside it (run by //backends:reprokit_backend_test).
"""

import io
import json
import math
import struct
import sys
import time
import traceback

_numpy_module = []  # [numpy or None] once looked for: imported only when needed


def _numpy():
    """numpy, or None where it is not installed (the raw-bytes path serves then).
    Imported on first use: a backend that never decodes to arrays starts faster."""
    if not _numpy_module:
        try:
            import numpy
        except ImportError:
            numpy = None
        _numpy_module.append(numpy)
    return _numpy_module[0]

PROTOCOL_VERSION = 1
MAGIC = b"RKBP"
MAX_HEADER_BYTES = 64 << 20
_PREFIX = struct.Struct("<4sIQ")

# Element size in bytes and the numpy type of each protocol dtype. bf16 has no
# numpy type: its bit patterns decode to float32.
DTYPE_SIZES = {"f16": 2, "bf16": 2, "f32": 4, "f64": 8, "i32": 4, "i64": 8, "bool": 1}
_NUMPY_NAMES = {"f16": "<f2", "f32": "<f4", "f64": "<f8", "i32": "<i4", "i64": "<i8",
                "bool": "|b1"}
DTYPES = tuple(DTYPE_SIZES)


class ProtocolError(Exception):
    """A byte stream that is not a well-formed frame, or a message out of place."""


class BackendFailure(Exception):
    """Raised by a run handler: the request fails with this failure kind."""

    kind = "runtime_error"


class CompileError(BackendFailure):
    kind = "compile_error"


class RunError(BackendFailure):
    kind = "runtime_error"


class Unsupported(BackendFailure):
    """The backend cannot take this graph (verdict cannot_judge, never a finding)."""

    kind = "unsupported"


def have_numpy():
    return _numpy() is not None


# ---------------------------------------------------------------------------
# Frames

def _read_exactly(stream, n):
    chunks = []
    left = n
    while left > 0:
        chunk = stream.read(left)
        if not chunk:
            break
        chunks.append(chunk)
        left -= len(chunk)
    return b"".join(chunks)


def read_frame(stream):
    """Reads one frame: (header dict, payload bytes), or None at end of input
    before the first byte of a frame. Raises ProtocolError otherwise."""
    prefix = _read_exactly(stream, _PREFIX.size)
    if not prefix:
        return None
    if len(prefix) < _PREFIX.size:
        raise ProtocolError("truncated frame: %d of %d prefix bytes" % (len(prefix), _PREFIX.size))
    magic, header_len, payload_len = _PREFIX.unpack(prefix)
    if magic != MAGIC:
        raise ProtocolError("bad magic %r (expected %r)" % (magic, MAGIC))
    if header_len > MAX_HEADER_BYTES:
        raise ProtocolError("header of %d bytes is over the %d-byte limit"
                            % (header_len, MAX_HEADER_BYTES))
    header_bytes = _read_exactly(stream, header_len)
    if len(header_bytes) < header_len:
        raise ProtocolError("truncated header: %d of %d bytes" % (len(header_bytes), header_len))
    try:
        header = json.loads(header_bytes.decode("utf-8"))
    except (UnicodeDecodeError, ValueError) as e:
        raise ProtocolError("header is not JSON: %s" % e) from None
    if not isinstance(header, dict) or not isinstance(header.get("type"), str):
        raise ProtocolError("header is not a JSON object with a string 'type'")
    payload = _read_exactly(stream, payload_len)
    if len(payload) < payload_len:
        raise ProtocolError("truncated payload: %d of %d bytes" % (len(payload), payload_len))
    return header, payload


def write_frame(stream, header, payload=b""):
    """Writes one frame and flushes. NaN/inf in the header are refused (JSON has none)."""
    header_bytes = json.dumps(header, separators=(",", ":"), allow_nan=False).encode("utf-8")
    if len(header_bytes) > MAX_HEADER_BYTES:
        raise ProtocolError("header of %d bytes is over the limit" % len(header_bytes))
    stream.write(_PREFIX.pack(MAGIC, len(header_bytes), len(payload)))
    stream.write(header_bytes)
    if payload:
        stream.write(payload)
    stream.flush()


# ---------------------------------------------------------------------------
# Tensors

class RawTensor:
    """A tensor as the protocol carries it: dtype name, shape, row-major bytes."""

    __slots__ = ("dtype", "shape", "data")

    def __init__(self, dtype, shape, data):
        if dtype not in DTYPE_SIZES:
            raise ValueError("unknown dtype %r" % (dtype,))
        self.dtype = dtype
        self.shape = tuple(int(d) for d in shape)
        self.data = bytes(data)
        if len(self.data) != num_elements(self.shape) * DTYPE_SIZES[dtype]:
            raise ValueError("%d bytes for %s%s" % (len(self.data), dtype, list(self.shape)))

    def values(self):
        """The elements as a flat list of Python numbers (bool as bool, f16/bf16 widened)."""
        n = num_elements(self.shape)
        if self.dtype == "bf16":
            bits = struct.unpack("<%dH" % n, self.data)
            return [struct.unpack("<f", struct.pack("<I", b << 16))[0] for b in bits]
        code = {"f16": "e", "f32": "f", "f64": "d", "i32": "i", "i64": "q", "bool": "?"}
        return list(struct.unpack("<%d%s" % (n, code[self.dtype]), self.data))

    @staticmethod
    def from_values(dtype, shape, values):
        """Packs a flat list of Python numbers (bf16 rounds to nearest even)."""
        values = list(values)
        if dtype == "bf16":
            data = b"".join(struct.pack("<H", _f32_bits_to_bf16(
                struct.unpack("<I", struct.pack("<f", v))[0])) for v in values)
            return RawTensor(dtype, shape, data)
        code = {"f16": "e", "f32": "f", "f64": "d", "i32": "i", "i64": "q", "bool": "?"}
        return RawTensor(dtype, shape, struct.pack("<%d%s" % (len(values), code[dtype]), *values))

    def __repr__(self):
        return "RawTensor(%s%s, %d bytes)" % (self.dtype, list(self.shape), len(self.data))


def num_elements(shape):
    n = 1
    for d in shape:
        n *= int(d)
    return n


def _f32_bits_to_bf16(bits):
    if (bits & 0x7F800000) == 0x7F800000 and (bits & 0x007FFFFF):
        return ((bits >> 16) | 0x0040) & 0xFFFF  # NaN stays a quiet NaN
    return ((bits + 0x7FFF + ((bits >> 16) & 1)) >> 16) & 0xFFFF


def _check_descriptor(desc, payload):
    try:
        dtype = desc["dtype"]
        shape = [int(d) for d in desc["shape"]]
        offset = int(desc["offset"])
        size = int(desc["size"])
    except (KeyError, TypeError, ValueError) as e:
        raise ProtocolError("bad tensor descriptor %r: %s" % (desc, e)) from None
    if dtype not in DTYPE_SIZES:
        raise ProtocolError("unknown dtype %r" % (dtype,))
    if any(d < 0 for d in shape):
        raise ProtocolError("negative dimension in %r" % (shape,))
    if size != num_elements(shape) * DTYPE_SIZES[dtype]:
        raise ProtocolError("tensor %s%s has size %d, expected %d"
                            % (dtype, shape, size, num_elements(shape) * DTYPE_SIZES[dtype]))
    if offset < 0 or offset + size > len(payload):
        raise ProtocolError("tensor bytes [%d, %d) outside the %d-byte payload"
                            % (offset, offset + size, len(payload)))
    return dtype, shape, offset, size


def decode_tensor(desc, payload, use_numpy=True):
    """A descriptor {dtype, shape, offset, size} into the payload -> numpy array
    (a writable copy; bf16 widened to float32) or, without numpy, a RawTensor."""
    dtype, shape, offset, size = _check_descriptor(desc, payload)
    data = bytes(payload[offset:offset + size])
    _np = _numpy() if use_numpy else None
    if _np is None:
        return RawTensor(dtype, shape, data)
    if dtype == "bf16":
        bits = _np.frombuffer(data, dtype="<u2").astype(_np.uint32) << 16
        return bits.view(_np.float32).reshape(shape).copy()
    return _np.frombuffer(data, dtype=_NUMPY_NAMES[dtype]).reshape(shape).copy()


def dtype_of_array(array):
    """The protocol dtype of a numpy array (float32 is f32: a bf16 result must be
    named explicitly)."""
    kind = array.dtype.kind
    size = array.dtype.itemsize
    names = {("f", 2): "f16", ("f", 4): "f32", ("f", 8): "f64", ("i", 4): "i32",
             ("i", 8): "i64", ("b", 1): "bool"}
    if (kind, size) not in names:
        raise ValueError("numpy dtype %s has no protocol dtype" % array.dtype)
    return names[(kind, size)]


def tensor_bytes(value, dtype=None):
    """(dtype, shape, bytes) of a RawTensor, a numpy array or a (dtype, array)
    pair. A float array given as bf16 rounds to nearest even."""
    if isinstance(value, tuple) and len(value) == 2 and isinstance(value[0], str):
        dtype, value = value
    if isinstance(value, RawTensor):
        if dtype is not None and dtype != value.dtype:
            raise ValueError("RawTensor of %s given as %s" % (value.dtype, dtype))
        return value.dtype, list(value.shape), value.data
    _np = _numpy()
    if _np is None:
        raise ValueError("cannot encode %r without numpy" % type(value))
    array = _np.asarray(value)
    if dtype is None:
        dtype = dtype_of_array(array)
    if dtype == "bf16":
        if array.dtype.kind == "u" and array.dtype.itemsize == 2:  # already bit patterns
            bits = array.astype("<u2")
        else:
            f32 = _np.ascontiguousarray(array, dtype=_np.float32).view(_np.uint32)
            nan = (f32 & 0x7F800000) == 0x7F800000
            nan &= (f32 & 0x007FFFFF) != 0
            rounded = (f32 + 0x7FFF + ((f32 >> 16) & 1)) >> 16
            quiet = (f32 >> 16) | 0x0040
            bits = _np.where(nan, quiet, rounded).astype("<u2")
        return dtype, list(array.shape), _np.ascontiguousarray(bits).tobytes()
    if dtype not in _NUMPY_NAMES:
        raise ValueError("unknown dtype %r" % (dtype,))
    out = _np.ascontiguousarray(array, dtype=_NUMPY_NAMES[dtype])
    return dtype, list(array.shape), out.tobytes()


class PayloadBuilder:
    """Collects the bytes of one frame's payload and the descriptors that point
    into it."""

    def __init__(self):
        self._buffer = io.BytesIO()

    def add_bytes(self, data):
        offset = self._buffer.tell()
        self._buffer.write(data)
        return {"offset": offset, "size": len(data)}

    def add_tensor(self, value, dtype=None):
        dtype, shape, data = tensor_bytes(value, dtype)
        desc = {"dtype": dtype, "shape": shape}
        desc.update(self.add_bytes(data))
        return desc

    def getvalue(self):
        return self._buffer.getvalue()


def encode_tensor(value, dtype=None):
    """(descriptor with offset 0, bytes) of one tensor: for single-tensor use."""
    builder = PayloadBuilder()
    desc = builder.add_tensor(value, dtype)
    return desc, builder.getvalue()


# ---------------------------------------------------------------------------
# The graph's JSON form

class DType(str):
    """A dtype attribute value (a str, so `attrs["dtype"] == "f16"` works)."""


class Node:
    __slots__ = ("id", "name", "op", "dtype", "shape", "operands", "attrs")

    def __init__(self, id, name, op, dtype, shape, operands, attrs):
        self.id = id
        self.name = name
        self.op = op
        self.dtype = dtype
        self.shape = shape
        self.operands = operands
        self.attrs = attrs

    def __repr__(self):
        return "Node(%%%s = %s%r : %s%s)" % (self.name, self.op, self.operands, self.dtype,
                                             self.shape)


class Graph:
    """The graph's JSON form as objects: nodes in topological order (node ids are
    list positions), inputs and outputs as node ids."""

    def __init__(self, name, nodes, inputs, outputs):
        self.name = name
        self.nodes = nodes
        self.inputs = inputs
        self.outputs = outputs

    def ops(self):
        return sorted({n.op for n in self.nodes})


def _float_value(v):
    if isinstance(v, str):
        table = {"inf": math.inf, "+inf": math.inf, "-inf": -math.inf, "nan": math.nan,
                 "-nan": -math.nan}
        if v not in table:
            raise ProtocolError("bad float attribute %r" % v)
        return table[v]
    return float(v)


def decode_attr(value, payload, use_numpy=True):
    if not isinstance(value, dict) or len(value) != 1:
        raise ProtocolError("attribute value %r is not an object with one member" % (value,))
    (kind, v), = value.items()
    if kind == "int":
        return int(v)
    if kind == "float":
        return _float_value(v)
    if kind == "bool":
        return bool(v)
    if kind == "string":
        return str(v)
    if kind == "ints":
        return [int(x) for x in v]
    if kind == "dtype":
        if v not in DTYPE_SIZES:
            raise ProtocolError("unknown dtype attribute %r" % (v,))
        return DType(v)
    if kind == "tensor":
        return decode_tensor(v, payload, use_numpy)
    raise ProtocolError("unknown attribute kind %r" % (kind,))


def decode_graph(graph_json, payload=b"", use_numpy=True):
    """The `json` member of a run request's graph -> Graph. Checks what a backend
    relies on: ids are positions, operands come earlier, inputs/outputs exist."""
    try:
        nodes = []
        for i, n in enumerate(graph_json["nodes"]):
            if int(n["id"]) != i:
                raise ProtocolError("node %d has id %r" % (i, n["id"]))
            operands = [int(o) for o in n.get("operands", [])]
            for o in operands:
                if not 0 <= o < i:
                    raise ProtocolError("node %d uses %d, not an earlier node" % (i, o))
            attrs = {k: decode_attr(v, payload, use_numpy)
                     for k, v in sorted(n.get("attrs", {}).items())}
            nodes.append(Node(i, str(n.get("name", str(i))), str(n["op"]), str(n["dtype"]),
                              [int(d) for d in n["shape"]], operands, attrs))
        inputs = [int(i) for i in graph_json["inputs"]]
        outputs = [int(o) for o in graph_json["outputs"]]
    except (KeyError, TypeError, ValueError) as e:
        raise ProtocolError("bad graph JSON: %s: %s" % (type(e).__name__, e)) from None
    for i in inputs + outputs:
        if not 0 <= i < len(nodes):
            raise ProtocolError("graph input/output %d is not a node" % i)
    return Graph(str(graph_json.get("name", "g")), nodes, inputs, outputs)


# ---------------------------------------------------------------------------
# The serve loop

class Request:
    """One run request, decoded: id, device, runs, options (str -> str), rk
    (text), graph (Graph, when the hello asked for json, else None), onnx
    (bytes or None), inputs (arrays or RawTensors, in signature order) and
    input_names."""

    def __init__(self, header, payload, use_numpy=True):
        self.header = header
        self.id = header.get("id")
        self.device = str(header.get("device", "cpu"))
        self.runs = int(header.get("runs", 1))
        self.options = {str(k): str(v) for k, v in header.get("options", {}).items()}
        graph = header.get("graph", {})
        if not isinstance(graph, dict):
            raise ProtocolError("'graph' is not an object")
        self.rk = graph.get("rk")
        self.graph = None
        if graph.get("json") is not None:
            self.graph = decode_graph(graph["json"], payload, use_numpy)
        self.onnx = None
        if graph.get("onnx") is not None:
            o = graph["onnx"]
            offset, size = int(o["offset"]), int(o["size"])
            if offset < 0 or offset + size > len(payload):
                raise ProtocolError("onnx bytes outside the payload")
            self.onnx = bytes(payload[offset:offset + size])
        inputs = header.get("inputs", [])
        self.inputs = [decode_tensor(t, payload, use_numpy) for t in inputs]
        self.input_names = [str(t.get("name", "")) for t in inputs]


class Result:
    """What a handler may return instead of a bare list of runs, to report its
    own compile and run times."""

    def __init__(self, runs, compile_seconds=None, run_seconds=None):
        self.runs = runs
        self.compile_seconds = compile_seconds
        self.run_seconds = run_seconds


def make_hello(name, version, devices=("cpu",), dtypes=DTYPES, ops=("*",),
               graph_formats=("rk", "json"), options=()):
    """A hello header. options: dicts {name, default, help}."""
    return {"type": "hello", "protocol": PROTOCOL_VERSION, "name": name, "version": version,
            "devices": list(devices), "dtypes": list(dtypes), "ops": list(ops),
            "graph_formats": list(graph_formats), "options": [dict(o) for o in options]}


def result_frame(request_id, result, output_dtypes=None):
    """(header, payload) of a result message. output_dtypes (list or None) names
    each output's dtype where an array alone cannot (bf16)."""
    if not isinstance(result, Result):
        result = Result(result)
    builder = PayloadBuilder()
    runs = []
    for outputs in result.runs:
        descs = []
        for i, value in enumerate(outputs):
            dtype = None
            if output_dtypes is not None and i < len(output_dtypes):
                dtype = output_dtypes[i]
            if isinstance(value, RawTensor) or isinstance(value, tuple):
                dtype = None  # it names its own dtype
            descs.append(builder.add_tensor(value, dtype))
        runs.append(descs)
    header = {"type": "result", "id": request_id, "runs": runs}
    if result.compile_seconds is not None:
        header["compile_seconds"] = float(result.compile_seconds)
    if result.run_seconds is not None:
        header["run_seconds"] = float(result.run_seconds)
    return header, builder.getvalue()


def failure_frame(request_id, kind, message):
    return {"type": "failure", "id": request_id, "kind": kind, "message": str(message)}


def serve(hello, handle_run, stdin=None, stdout=None, use_numpy=True, log=None):
    """Runs the backend: writes `hello`, then answers run requests until shutdown
    or end of input; returns the exit status (0; 2 after a protocol error in what
    the harness sent, which is reported on stderr).

    handle_run(request, phase) -> a list of runs (each a list of outputs: numpy
    arrays, RawTensors or (dtype, array) pairs) or a Result; phase(name) sends a
    phase message. Outputs of a graph given as JSON are encoded in the graph's
    output dtypes (so a float32 array can be a bf16 output)."""
    stdin = stdin if stdin is not None else sys.stdin.buffer
    stdout = stdout if stdout is not None else sys.stdout.buffer
    log = log if log is not None else sys.stderr
    write_frame(stdout, hello)
    while True:
        try:
            frame = read_frame(stdin)
        except ProtocolError as e:
            print("%s: bad frame from the harness: %s" % (hello.get("name"), e), file=log)
            return 2
        if frame is None:
            return 0
        header, payload = frame
        kind = header["type"]
        if kind == "shutdown":
            return 0
        if kind != "run":
            print("%s: ignoring a %r message" % (hello.get("name"), kind), file=log)
            continue
        request_id = header.get("id")
        try:
            request = Request(header, payload, use_numpy)
        except (ProtocolError, ValueError, KeyError, TypeError) as e:
            write_frame(stdout, failure_frame(request_id, "unsupported",
                                              "cannot decode the request: %s" % e))
            continue

        def phase(name, _id=request_id):
            write_frame(stdout, {"type": "phase", "id": _id, "name": str(name)})

        started = time.monotonic()
        try:
            result = handle_run(request, phase)
        except BackendFailure as e:
            write_frame(stdout, failure_frame(request_id, e.kind, e))
            continue
        except Exception:  # The backend's own bug: report it, keep serving.
            write_frame(stdout, failure_frame(request_id, "runtime_error",
                                              traceback.format_exc(limit=20)))
            continue
        if not isinstance(result, Result):
            result = Result(result, run_seconds=time.monotonic() - started)
        output_dtypes = None
        if request.graph is not None:
            output_dtypes = [request.graph.nodes[o].dtype for o in request.graph.outputs]
        try:
            out_header, out_payload = result_frame(request_id, result, output_dtypes)
        except (ValueError, TypeError) as e:
            write_frame(stdout, failure_frame(request_id, "runtime_error",
                                              "cannot encode the outputs: %s" % e))
            continue
        write_frame(stdout, out_header, out_payload)
