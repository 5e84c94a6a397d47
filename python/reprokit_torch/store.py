"""Blobs of a bundle's content store (docs/STORE.md), written from Python.

An object is `blobs/cas/<2 hex>/<64 hex>`: the 16-byte RKCS header (version 1,
codec 1 = zstd, no shuffle, the raw size) and one zstd frame. When the
`zstandard` module is importable (Debian's python3-zstandard) the frame is
compressed; otherwise it is a frame of raw (stored) blocks, which every zstd
decoder reads, so this needs nothing but the standard library. Either way the
name is the SHA-256 of the raw bytes, as reprokit's own store writes it.
Tested by python/tests/test_convert.py and python/tests/test_convert_ops.py
(every bundle goes through `reprokit`).
"""

import hashlib
import os
import struct
import tempfile

try:  # optional: smaller blobs, same names and the same decoded bytes
    import zstandard as _zstd
except ImportError:  # pragma: no cover - depends on the machine
    _zstd = None

_MAGIC = b"RKCS"
_VERSION = 1
_CODEC_ZSTD = 1
_ZSTD_MAGIC = 0xFD2FB528
_RAW_BLOCK_MAX = 128 * 1024  # a block's content is at most 128 KiB


def zstd_stored_frame(raw):
    """One zstd frame holding `raw` in raw blocks (RFC 8878, section 3.1.1).

    A 128 KiB window (so a decoder's window limit never refuses a large blob),
    an 8-byte content size and no checksum; the last block carries the
    Last_Block bit (an empty input is one empty raw block).
    """
    out = bytearray(struct.pack("<I", _ZSTD_MAGIC))
    out.append(0xC0)  # Frame_Content_Size_flag = 3 (8 bytes), not single-segment
    out.append(0x38)  # Window_Descriptor: exponent 7, mantissa 0 -> 2^17 bytes
    out += struct.pack("<Q", len(raw))
    view = memoryview(raw)
    pos = 0
    while True:
        size = min(_RAW_BLOCK_MAX, len(raw) - pos)
        last = pos + size >= len(raw)
        header = (size << 3) | (0 << 1) | (1 if last else 0)  # Block_Type 0 = Raw_Block
        out += struct.pack("<I", header)[:3]
        out += view[pos:pos + size]
        pos += size
        if last:
            return bytes(out)


def encode_object(raw, compress=True):
    """The stored bytes of an object holding `raw`."""
    header = _MAGIC + bytes([_VERSION, _CODEC_ZSTD, 0, 0]) + struct.pack("<Q", len(raw))
    if compress and _zstd is not None:
        frame = _zstd.ZstdCompressor(level=3, write_content_size=True).compress(raw)
    else:
        frame = zstd_stored_frame(raw)
    return header + frame


def put_blob(root, raw, compress=None):
    """Stores `raw` under `root` (a bundle's blobs/ folder); returns its hex digest.

    Atomic as reprokit's store: a temporary file in the shard folder, renamed
    into place; an existing object is left as it is. compress=None: compressed
    unless $REPROKIT_TORCH_STORED_BLOBS is set (raw blocks, as without zstandard).
    """
    if compress is None:
        compress = not os.environ.get("REPROKIT_TORCH_STORED_BLOBS")
    digest = hashlib.sha256(raw).hexdigest()
    shard = os.path.join(root, "cas", digest[:2])
    path = os.path.join(shard, digest)
    if os.path.exists(path):
        return digest
    os.makedirs(shard, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=".tmp." + digest + ".", dir=shard)
    try:
        with os.fdopen(fd, "wb") as f:
            f.write(encode_object(raw, compress))
        os.chmod(tmp, 0o444)
        os.replace(tmp, path)
    except BaseException:
        if os.path.exists(tmp):
            os.unlink(tmp)
        raise
    return digest


def read_blob(root, digest):
    """The raw bytes of an object this module wrote (for tests and tools)."""
    with open(os.path.join(root, "cas", digest[:2], digest), "rb") as f:
        data = f.read()
    if data[:4] != _MAGIC or data[4] != _VERSION or data[5] != _CODEC_ZSTD or data[6] != 0:
        raise ValueError("not an unshuffled version-1 reprokit store object: " + digest)
    raw_size = struct.unpack("<Q", data[8:16])[0]
    frame = data[16:]
    if frame[4:6] == b"\xc0\x38" and frame[6:14] == struct.pack("<Q", raw_size):
        raw = _read_stored_frame(frame)
    elif _zstd is not None:
        raw = _zstd.ZstdDecompressor().decompress(frame, max_output_size=raw_size)
    else:
        raise ValueError("compressed object and no zstandard module: " + digest)
    if len(raw) != raw_size or hashlib.sha256(raw).hexdigest() != digest:
        raise ValueError("object is corrupt: " + digest)
    return raw


def _read_stored_frame(frame):
    pos, out = 14, bytearray()
    while True:
        header = int.from_bytes(frame[pos:pos + 3], "little")
        pos += 3
        if (header >> 1) & 3 != 0:
            raise ValueError("not a raw block")
        size = header >> 3
        out += frame[pos:pos + size]
        pos += size
        if header & 1:
            return bytes(out)
