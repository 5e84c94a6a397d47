// Loads every model write_random_models wrote into ONNX Runtime (Node.js
// package onnxruntime-node), runs it on the written inputs and compares the
// outputs with the reference interpreter's: integers and bool exactly,
// floats within a loose tolerance (this checks what the exporter wrote, not
// ONNX Runtime's accuracy).
//
//   node ort_run_models.js ORT_NODE_DIR MODEL_DIR
//
// Prints one line per model that fails (session creation, run, or value)
// and a summary line "models N created C ran R matched M invalid I
// no_kernel K bf16_io F known_ort_bug B"; exits 1 when any model fails for
// another reason than ONNX Runtime's CPU build having no kernel for an op
// and dtype ("Could not find an implementation": a limit of the runtime, not
// of the model), onnxruntime-node refusing a model whose graph inputs or
// outputs are bfloat16 ("Unsupported data type: 16": the Node.js binding has
// no bfloat16 tensors; the same model without bfloat16 at its boundary
// loads), or a known ONNX Runtime bug (kKnownOrtBugs). Float16 outputs are
// not compared: ONNX Runtime runs float16 ops it has no kernel for in
// float32 and drops the roundings between them. Used by
// compiler/onnx/ort_accepts_exports_test.sh.
'use strict';
const fs = require('fs');
const path = require('path');

const ort = require(path.resolve(process.argv[2]));
const dir = process.argv[3];

const kArrays = {
  float32: Float32Array, float64: Float64Array, int32: Int32Array,
  int64: BigInt64Array, bool: Uint8Array, float16: Uint16Array,
};

// ONNX Runtime 1.30 bugs on valid models, counted, not failed:
// - FuseReluClip (relu_clip_fusion.cc) refuses Relu -> Clip on double
//   ("Unexpected data type for Clip 'min' input of 11") at session creation;
//   the model loads with graph optimizations off.
// - QuickGeluFusion rewrites x * Sigmoid(x) on double into
//   com.microsoft.QuickGelu, which has a float kernel only ("Failed to find
//   kernel for com.microsoft.QuickGelu"); loads at the basic level.
const kKnownOrtBugs = [
  /relu_clip_fusion.*Unexpected data type for Clip 'min' input of 11/,
  /Failed to find kernel for com\.microsoft\.QuickGelu/,
];

function halfToFloat(h) {
  const sign = h & 0x8000 ? -1 : 1;
  const exp = (h >> 10) & 0x1f;
  const frac = h & 0x3ff;
  if (exp === 0) return sign * Math.pow(2, -14) * (frac / 1024);
  if (exp === 31) return frac ? NaN : sign * Infinity;
  return sign * Math.pow(2, exp - 15) * (1 + frac / 1024);
}

function readTensor(desc) {
  const bytes = fs.readFileSync(path.join(dir, desc.file));
  const Array = kArrays[desc.type];
  const copy = new Uint8Array(bytes.length);
  copy.set(bytes);
  const data = new Array(copy.buffer, 0, bytes.length / Array.BYTES_PER_ELEMENT);
  return new ort.Tensor(desc.type, data, desc.dims);
}

function valuesOf(type, data) {
  const out = [];
  for (let i = 0; i < data.length; ++i) {
    out.push(type === 'float16' && data instanceof Uint16Array ? halfToFloat(data[i])
                                                               : Number(data[i]));
  }
  return out;
}

function compare(desc, got) {
  if (got.type !== desc.type) return `output ${desc.name}: type ${got.type}, expected ${desc.type}`;
  const dims = Array.from(got.dims).map(Number);
  if (JSON.stringify(dims) !== JSON.stringify(desc.dims)) {
    return `output ${desc.name}: dims [${dims}], expected [${desc.dims}]`;
  }
  const want = valuesOf(desc.type, readTensor(desc).data);
  const have = valuesOf(got.type, got.data);
  if (desc.type === 'float16') return null;
  const isFloat = desc.type.startsWith('float');
  for (let i = 0; i < want.length; ++i) {
    const a = want[i], b = have[i];
    if (Number.isNaN(a) && Number.isNaN(b)) continue;
    if (!isFloat ? a !== b : !(Math.abs(a - b) <= 2e-2 * (1 + Math.abs(a)) || a === b)) {
      return `output ${desc.name}[${i}]: ${b}, expected ${a}`;
    }
  }
  return null;
}

async function main() {
  const files = fs.readdirSync(dir).filter((f) => f.endsWith('.json')).sort();
  let created = 0, ran = 0, matched = 0, failed = 0, invalid = 0, noKernel = 0, knownBug = 0,
      bf16Io = 0;
  for (const file of files) {
    const spec = JSON.parse(fs.readFileSync(path.join(dir, file), 'utf8'));
    let session;
    try {
      session = await ort.InferenceSession.create(path.join(dir, spec.model), {logSeverityLevel: 4});
      ++created;
    } catch (e) {
      const message = String(e.message).split('\n')[0];
      console.log(`${spec.model}: create: ${message}`);
      if (/Could not find an implementation/.test(message)) {
        ++noKernel;
      } else if (/Unsupported data type: 16/.test(message)) {
        ++bf16Io;
      } else if (kKnownOrtBugs.some((re) => re.test(message))) {
        ++knownBug;
      } else {
        ++failed;
        if (/invalid model/.test(message)) ++invalid;
      }
      continue;
    }
    const all = spec.inputs.concat(spec.outputs);
    if (all.some((t) => t.type === 'bfloat16')) continue;
    let results;
    try {
      const feeds = {};
      for (const t of spec.inputs) feeds[t.name] = readTensor(t);
      results = await session.run(feeds);
      ++ran;
    } catch (e) {
      ++failed;
      console.log(`${spec.model}: run: ${String(e.message).split('\n')[0]}`);
      continue;
    }
    let problem = null;
    for (const o of spec.outputs) {
      problem = problem || compare(o, results[o.name]);
    }
    if (problem) {
      ++failed;
      console.log(`${spec.model}: value: ${problem}`);
    } else {
      ++matched;
    }
  }
  console.log(`models ${files.length} created ${created} ran ${ran} matched ${matched} ` +
              `invalid ${invalid} no_kernel ${noKernel} bf16_io ${bf16Io} ` +
              `known_ort_bug ${knownBug}`);
  process.exit(failed > 0 ? 1 : 0);
}

main();
