#!/usr/bin/env node
// The onnxruntime backend on Node.js: the same backend as serve.py's Python
// path (docs/BACKENDS.md), for machines without Python's onnxruntime. It runs
// the ONNX model of each request (graph_formats ["rk", "onnx"]) with
// onnxruntime-node, the npm build of ONNX Runtime that tools/install_deps.sh
// installs in third_party/onnxruntime_node (or $REPROKIT_ORT_NODE_MODULES).
//
// Speaks protocol version 1: RKBP frames on stdin/stdout (magic, u32 header
// length, u64 payload length, JSON header, payload), hello first, then one
// result or failure per run request, phase messages before them, until a
// shutdown message or end of input. Logging goes to stderr only.
//
// A session that cannot be built is a compile_error (a kernel ONNX Runtime
// lacks: unsupported), an error while running a runtime_error. bf16 is not
// declared: onnxruntime-node has no bfloat16 tensor type. The per-op dtypes
// come from op_dtypes.json beside this file (shared with the Python path).
// Started by backends/onnxruntime/serve; tested by //backends:adapters_test,
// //backends:onnxruntime_cli_test and //testing:onnxruntime_op_dtypes_test.
'use strict';

const fs = require('fs');
const path = require('path');

const MAGIC = Buffer.from('RKBP');
const MAX_HEADER_BYTES = 64 << 20;
const PROTOCOL_VERSION = 1;

function loadOrt() {
  const modules = process.env.REPROKIT_ORT_NODE_MODULES ||
      path.join(__dirname, '..', '..', 'third_party', 'onnxruntime_node', 'node_modules');
  const where = path.join(modules, 'onnxruntime-node');
  try {
    return require(where);
  } catch (e) {
    process.stderr.write(
        `onnxruntime (node): cannot load onnxruntime-node from ${where}: ${e.message}\n` +
        'install it with tools/install_deps.sh (npm ci --ignore-scripts in ' +
        'third_party/onnxruntime_node)\n');
    process.exit(3);
  }
}
const ort = loadOrt();

// Protocol dtype -> [ONNX Runtime tensor type, typed array over the raw bytes].
const F16_ARRAY = typeof Float16Array !== 'undefined' ? Float16Array : Uint16Array;
const DTYPES = {
  f16: ['float16', F16_ARRAY, 2],
  f32: ['float32', Float32Array, 4],
  f64: ['float64', Float64Array, 8],
  i32: ['int32', Int32Array, 4],
  i64: ['int64', BigInt64Array, 8],
  bool: ['bool', Uint8Array, 1],
};
const FROM_ORT_TYPE = Object.fromEntries(Object.entries(DTYPES).map(([k, v]) => [v[0], k]));
const LEVELS = {disable: 'disabled', basic: 'basic', extended: 'extended', all: 'all'};
const OPTIONS = [
  {name: 'graph_optimization_level', default: 'all',
   help: 'onnxruntime graph optimizations: disable|basic|extended|all'},
  {name: 'intra_op_num_threads', default: '0',
   help: 'threads inside an op (0: onnxruntime\'s choice)'},
  {name: 'inject_bug_TESTING_ONLY', default: '',
   help: 'testing the harness: accuracy (the first f32/f64 output\'s first element + 1) ' +
       'or compile_error'},
];
const PLANTED = ['', 'accuracy', 'compile_error'];

class Failure extends Error {
  constructor(kind, message) {
    super(message);
    this.kind = kind;
  }
}

// ---------------------------------------------------------------------------
// Frames

// Request ids are JSON integers up to 2^63 (the harness's warm-up uses 2^62),
// past what a JS number holds exactly: such an id travels as a BigInt and is
// written back digit for digit.
function stringifyHeader(header) {
  const text = JSON.stringify(header, (k, v) => (typeof v === 'bigint' ? `__bigint__${v}` : v));
  return text.replace(/"__bigint__(-?[0-9]+)"/g, '$1');
}

// The request's id, exact: read from the header's text (the top-level "id"
// member) when the parsed number lost digits.
function exactId(header, headerText) {
  if (typeof header.id !== 'number' || Number.isSafeInteger(header.id)) return header.id;
  let depth = 0;
  for (let i = 0; i < headerText.length; ++i) {
    const c = headerText[i];
    if (c === '{' || c === '[') {
      ++depth;
    } else if (c === '}' || c === ']') {
      --depth;
    } else if (c === '"') {
      const start = i;
      for (++i; i < headerText.length && headerText[i] !== '"'; ++i) {
        if (headerText[i] === '\\') ++i;
      }
      if (depth !== 1 || headerText.slice(start, i + 1) !== '"id"') continue;
      const m = /^\s*:\s*(-?[0-9]+)/.exec(headerText.slice(i + 1));
      if (m) return BigInt(m[1]);
    }
  }
  return header.id;
}

function writeFrame(header, payload) {
  const headerBytes = Buffer.from(stringifyHeader(header), 'utf8');
  const prefix = Buffer.alloc(16);
  MAGIC.copy(prefix, 0);
  prefix.writeUInt32LE(headerBytes.length, 4);
  prefix.writeBigUInt64LE(BigInt(payload ? payload.length : 0), 8);
  const parts = [prefix, headerBytes];
  if (payload && payload.length) parts.push(payload);
  // Pipes are synchronous on Linux: the frame is out before the next request.
  process.stdout.write(Buffer.concat(parts));
}

// Yields {header, payload} per frame of `stream`; throws on anything else.
async function* readFrames(stream) {
  let chunks = [];
  let have = 0;
  const take = (n) => {
    const all = chunks.length === 1 ? chunks[0] : Buffer.concat(chunks, have);
    const out = all.subarray(0, n);
    const rest = all.subarray(n);
    chunks = rest.length ? [rest] : [];
    have = rest.length;
    return out;
  };
  let need = 16;
  let prefix = null;
  for await (const chunk of stream) {
    chunks.push(chunk);
    have += chunk.length;
    while (have >= need) {
      if (prefix === null) {
        prefix = Buffer.from(take(16));
        if (!prefix.subarray(0, 4).equals(MAGIC)) {
          throw new Error(`bad magic ${JSON.stringify(prefix.subarray(0, 4).toString('latin1'))}`);
        }
        const headerLength = prefix.readUInt32LE(4);
        if (headerLength > MAX_HEADER_BYTES) {
          throw new Error(`header of ${headerLength} bytes is over the limit`);
        }
        const payloadLength = prefix.readBigUInt64LE(8);
        if (payloadLength > BigInt(Number.MAX_SAFE_INTEGER)) throw new Error('payload too large');
        need = headerLength + Number(payloadLength);
        continue;
      }
      const headerLength = prefix.readUInt32LE(4);
      const body = Buffer.from(take(need));
      let header;
      const headerText = body.subarray(0, headerLength).toString('utf8');
      try {
        header = JSON.parse(headerText);
      } catch (e) {
        throw new Error(`header is not JSON: ${e.message}`);
      }
      if (header === null || typeof header !== 'object' || typeof header.type !== 'string') {
        throw new Error('header is not a JSON object with a string \'type\'');
      }
      prefix = null;
      need = 16;
      yield {header, headerText, payload: body.subarray(headerLength)};
    }
  }
  if (have > 0 || prefix !== null) throw new Error('truncated frame at end of input');
}

// ---------------------------------------------------------------------------
// Tensors

function elementCount(shape) {
  return shape.reduce((n, d) => n * d, 1);
}

function decodeTensor(desc, payload) {
  const spec = DTYPES[desc.dtype];
  if (!spec) throw new Failure('unsupported', `dtype ${desc.dtype} is not declared`);
  const shape = desc.shape.map(Number);
  const size = Number(desc.size);
  const offset = Number(desc.offset);
  if (size !== elementCount(shape) * spec[2] || offset < 0 || offset + size > payload.length) {
    throw new Failure('unsupported', `bad tensor descriptor ${JSON.stringify(desc)}`);
  }
  // A copy: typed arrays need their element alignment.
  const bytes = new Uint8Array(size);
  bytes.set(payload.subarray(offset, offset + size));
  const data = new spec[1](bytes.buffer, 0, size / spec[2]);
  return new ort.Tensor(spec[0], data, shape);
}

function tensorBytes(tensor) {
  const data = tensor.data;
  return Buffer.from(data.buffer, data.byteOffset, data.byteLength);
}

// ---------------------------------------------------------------------------
// Requests

function sessionOptions(options) {
  const known = new Set(OPTIONS.map((o) => o.name));
  const unknown = Object.keys(options).filter((k) => !known.has(k)).sort();
  if (unknown.length) throw new Failure('unsupported', `unknown options ${unknown.join(', ')}`);
  const level = String(options.graph_optimization_level ?? 'all');
  if (!(level in LEVELS)) {
    throw new Failure('unsupported', `graph_optimization_level must be one of ` +
                      `${Object.keys(LEVELS).join('|')}, got ${JSON.stringify(level)}`);
  }
  const threadsText = String(options.intra_op_num_threads ?? '0');
  if (!/^[0-9]+$/.test(threadsText)) {
    throw new Failure('unsupported',
                      `intra_op_num_threads must be an integer, got ${JSON.stringify(threadsText)}`);
  }
  const planted = String(options.inject_bug_TESTING_ONLY ?? '');
  if (!PLANTED.includes(planted)) {
    throw new Failure('unsupported', `inject_bug_TESTING_ONLY must be one of ` +
                      `${PLANTED.join('|')}, got ${JSON.stringify(planted)}`);
  }
  const so = {graphOptimizationLevel: LEVELS[level], logSeverityLevel: 3};
  const threads = Number(threadsText);
  if (threads > 0) so.intraOpNumThreads = threads;
  return so;
}

function isNotImplemented(message) {
  return message.includes('NOT_IMPLEMENTED') || message.includes('NotImplemented') ||
      message.includes('Could not find an implementation');
}

async function handleRun(header, payload, devices, phase) {
  const graph = header.graph || {};
  if (!graph.onnx) throw new Failure('unsupported', 'onnxruntime needs the graph as ONNX');
  const device = String(header.device || 'cpu');
  if (!devices.includes(device)) {
    throw new Failure('unsupported', `device ${device}: this onnxruntime has ${devices.join(', ')}`);
  }
  const so = sessionOptions(header.options || {});
  so.executionProviders = device === 'cuda' ? ['cuda', 'cpu'] : ['cpu'];
  const onnxOffset = Number(graph.onnx.offset);
  const onnxSize = Number(graph.onnx.size);
  if (onnxOffset < 0 || onnxOffset + onnxSize > payload.length) {
    throw new Failure('unsupported', 'onnx bytes outside the payload');
  }
  const model = new Uint8Array(payload.subarray(onnxOffset, onnxOffset + onnxSize));
  const inputs = (header.inputs || []).map((t) => decodeTensor(t, payload));

  const planted = String((header.options || {}).inject_bug_TESTING_ONLY ?? '');
  phase('compile');
  let started = process.hrtime.bigint();
  let session;
  try {
    if (planted === 'compile_error') throw new Error('planted compile error (TESTING_ONLY)');
    session = await ort.InferenceSession.create(model, so);
  } catch (e) {
    const message = String(e && e.message || e);
    throw new Failure(isNotImplemented(message) ? 'unsupported' : 'compile_error',
                      `onnxruntime: ${message}`);
  }
  const compileSeconds = Number(process.hrtime.bigint() - started) / 1e9;
  try {
    if (session.inputNames.length !== inputs.length) {
      throw new Failure('compile_error', `the model has ${session.inputNames.length} inputs, ` +
                        `the request ${inputs.length}`);
    }
    const feeds = {};
    session.inputNames.forEach((name, i) => { feeds[name] = inputs[i]; });
    phase('run');
    const runs = [];
    started = process.hrtime.bigint();
    const runsWanted = Math.max(1, Number(header.runs || 1));
    for (let r = 0; r < runsWanted; ++r) {
      let outputs;
      try {
        outputs = await session.run(feeds);
      } catch (e) {
        throw new Failure('runtime_error', `onnxruntime: ${String(e && e.message || e)}`);
      }
      const values = session.outputNames.map((name) => outputs[name]);
      if (planted === 'accuracy') plantWrongValue(values);
      runs.push(values);
    }
    const runSeconds = Number(process.hrtime.bigint() - started) / 1e9 / runsWanted;
    return {runs, compileSeconds, runSeconds};
  } finally {
    await session.release();
  }
}

// The planted accuracy bug: the first element of the first f32/f64 output
// is off by one, the same in every run.
function plantWrongValue(outputs) {
  const target = outputs.find((t) => (t.type === 'float32' || t.type === 'float64') &&
                                     t.data.length > 0);
  if (target) target.data[0] += 1;
}

function resultFrame(id, result) {
  const parts = [];
  let offset = 0;
  const runs = result.runs.map((outputs) => outputs.map((tensor) => {
    const dtype = FROM_ORT_TYPE[tensor.type];
    if (!dtype) throw new Failure('runtime_error', `output of type ${tensor.type} has no dtype`);
    const bytes = tensorBytes(tensor);
    const desc = {dtype, shape: tensor.dims.map(Number), offset, size: bytes.length};
    parts.push(bytes);
    offset += bytes.length;
    return desc;
  }));
  return [{type: 'result', id, runs, compile_seconds: result.compileSeconds,
           run_seconds: result.runSeconds}, Buffer.concat(parts)];
}

// ---------------------------------------------------------------------------

function devicesOfThisBuild() {
  // The CUDA provider is a library beside the binding only where the package
  // was installed with its GPU download (never with --ignore-scripts).
  const bin = path.dirname(require.resolve(path.join(
      process.env.REPROKIT_ORT_NODE_MODULES ||
          path.join(__dirname, '..', '..', 'third_party', 'onnxruntime_node', 'node_modules'),
      'onnxruntime-node')));
  const binding = path.join(bin, '..', 'bin', 'napi-v6', process.platform, process.arch);
  return fs.existsSync(path.join(binding, 'libonnxruntime_providers_cuda.so')) ?
      ['cpu', 'cuda'] : ['cpu'];
}

async function main() {
  // REPROKIT_ORT_OP_DTYPES: another table, for probing what is not declared
  // (testing/onnxruntime_op_dtypes_test.cc).
  const table = process.env.REPROKIT_ORT_OP_DTYPES || path.join(__dirname, 'op_dtypes.json');
  const opDtypes = JSON.parse(fs.readFileSync(table, 'utf8'));
  const devices = devicesOfThisBuild();
  const hello = {
    type: 'hello', protocol: PROTOCOL_VERSION, name: 'onnxruntime',
    version: `onnxruntime ${ort.env.versions.node} (node)`,
    devices, dtypes: opDtypes.dtypes, ops: Object.keys(opDtypes.op_dtypes).sort(),
    op_dtypes: opDtypes.op_dtypes, graph_formats: ['rk', 'onnx'], options: OPTIONS,
  };
  writeFrame(hello);
  try {
    for await (const {header, headerText, payload} of readFrames(process.stdin)) {
      if (header.type === 'shutdown') break;
      if (header.type !== 'run') {
        process.stderr.write(`onnxruntime (node): ignoring a ${header.type} message\n`);
        continue;
      }
      const id = exactId(header, headerText);
      const phase = (name) => writeFrame({type: 'phase', id, name});
      try {
        const result = await handleRun(header, payload, devices, phase);
        const [out, bytes] = resultFrame(id, result);
        writeFrame(out, bytes);
      } catch (e) {
        const kind = e instanceof Failure ? e.kind : 'runtime_error';
        const message = e instanceof Failure ? e.message : String(e && e.stack || e);
        writeFrame({type: 'failure', id, kind, message});
      }
    }
  } catch (e) {
    process.stderr.write(`onnxruntime (node): bad frame from the harness: ${e.message}\n`);
    process.exit(2);
  }
  process.exit(0);
}

main();
