"""A reprokit graph under construction and its text form (docs/FORMAT.md).

`RkGraph` holds inputs, nodes and outputs with their types; `to_text()` prints
the `.rk` file: attributes sorted by name, floats always with a '.', an
exponent, inf or nan, tensor literals up to 64 elements inline and larger ones
as `dense<T>sha256:<hex>` references whose bytes go to the blob store. Nodes no
output depends on are dropped when printing (inputs always stay).
Tested by python/tests/test_convert.py and python/tests/test_convert_ops.py
(every graph goes through `reprokit`).
"""

import math
import re

import numpy as np

INLINE_LIMIT = 64
DTYPES = ("f16", "bf16", "f32", "f64", "i32", "i64", "bool")
FLOATS = ("f16", "bf16", "f32", "f64")
_NAME_OK = re.compile(r"^[A-Za-z0-9_.]+$")


class Dtype(str):
    """An attribute value that prints as a bare dtype name (`dtype=f32`)."""


class Literal:
    """A tensor literal: `raw` little-endian row-major bytes of `dtype[shape]`."""

    def __init__(self, dtype, shape, raw, values):
        self.dtype, self.shape, self.raw, self.values = dtype, tuple(shape), raw, values


class Value:
    """A tensor value of the graph: a node or input name and its type."""

    __slots__ = ("name", "dtype", "shape")

    def __init__(self, name, dtype, shape):
        self.name, self.dtype, self.shape = name, dtype, tuple(int(d) for d in shape)

    @property
    def rank(self):
        return len(self.shape)

    def type_text(self):
        return "%s[%s]" % (self.dtype, ",".join(str(d) for d in self.shape))

    def __repr__(self):
        return "%%%s: %s" % (self.name, self.type_text())


def format_float(v):
    v = float(v)
    if math.isnan(v):
        return "-nan" if math.copysign(1.0, v) < 0 else "nan"
    if math.isinf(v):
        return "inf" if v > 0 else "-inf"
    text = repr(v)
    if "." not in text and "e" not in text and "n" not in text:
        text += ".0"
    return text


def _attr_text(v):
    if isinstance(v, Dtype):
        return str(v)
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, int):
        return str(v)
    if isinstance(v, float):
        return format_float(v)
    if isinstance(v, str):
        return '"' + "".join(
            c if 0x20 <= ord(c) <= 0x7E and c not in '\\"' else
            {"\\": "\\\\", '"': '\\"', "\n": "\\n", "\t": "\\t", "\r": "\\r"}.get(c, "\\x%02x" % (ord(c) & 0xFF))
            for c in v) + '"'
    if isinstance(v, (list, tuple)):
        return "[" + ",".join(str(int(x)) for x in v) + "]"
    if isinstance(v, Literal):
        head = "dense<%s[%s]>" % (v.dtype, ",".join(str(d) for d in v.shape))
        if v.values is None:
            return head + "sha256:" + v.digest
        return head + "[" + ", ".join(_element_text(x, v.dtype) for x in v.values) + "]"
    raise TypeError("attribute value %r" % (v,))


def _element_text(x, dtype):
    if dtype == "bool":
        return "true" if x else "false"
    if dtype in ("i32", "i64"):
        return str(int(x))
    return format_float(x)


def sanitize(name):
    name = re.sub(r"[^A-Za-z0-9_.]", "_", str(name)) or "v"
    if name.isdigit():
        name = "v" + name
    return name


class RkGraph:
    def __init__(self, name):
        self.name = sanitize(name)
        self.inputs = []   # (Value, grad)
        self.nodes = []    # (Value, op, operand names, attrs)
        self.outputs = []  # Value
        self._names = set()

    def fresh(self, hint):
        base = sanitize(hint)
        name, k = base, 1
        while name in self._names:
            name = "%s.%d" % (base, k)
            k += 1
        self._names.add(name)
        return name

    def add_input(self, hint, dtype, shape, grad=False):
        v = Value(self.fresh(hint), dtype, shape)
        self.inputs.append((v, bool(grad) and dtype in FLOATS))
        return v

    def add(self, op, operands, attrs, dtype, shape, hint):
        v = Value(self.fresh(hint), dtype, shape)
        self.nodes.append((v, op, [o.name for o in operands], dict(attrs or {})))
        return v

    def literals(self):
        for _, _, _, attrs in self.nodes:
            for a in attrs.values():
                if isinstance(a, Literal):
                    yield a

    def live_nodes(self):
        needed = {o.name for o in self.outputs}
        keep = []
        for node in reversed(self.nodes):
            if node[0].name in needed:
                keep.append(node)
                needed.update(node[2])
        return list(reversed(keep))

    def to_text(self, header=""):
        lines = [header.rstrip("\n")] if header else []
        params = ", ".join("%%%s: %s%s" % (v.name, v.type_text(), " grad" if g else "")
                           for v, g in self.inputs)
        name = self.name if _NAME_OK.match(self.name) else _attr_text(self.name)
        lines.append("graph @%s(%s) {" % (name, params))
        for v, op, operands, attrs in self.live_nodes():
            attr_text = ""
            if attrs:
                attr_text = " {" + ", ".join("%s=%s" % (k, _attr_text(attrs[k]))
                                             for k in sorted(attrs)) + "}"
            lines.append("  %%%s = %s(%s)%s : %s" % (
                v.name, op, ", ".join("%" + o for o in operands), attr_text, v.type_text()))
        lines.append("  return " + ", ".join("%" + o.name for o in self.outputs))
        lines.append("}")
        return "\n".join(lines) + "\n"


def literal_from_numpy(array, dtype):
    """A Literal of `dtype` from a NumPy array (bf16 given as its uint16 bit patterns)."""
    array = np.ascontiguousarray(array).reshape(np.shape(array))  # keeps a 0-d array 0-d
    raw = array.tobytes()
    if array.size > INLINE_LIMIT:
        return Literal(dtype, array.shape, raw, None)
    if dtype == "bf16":
        values = [float(np.array([int(b) << 16], dtype=np.uint32).view(np.float32)[0])
                  for b in array.reshape(-1).view(np.uint16)]
    else:
        values = array.reshape(-1).tolist()
    return Literal(dtype, array.shape, raw, values)
