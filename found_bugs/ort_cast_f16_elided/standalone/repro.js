#!/usr/bin/env node
// Runs model.onnx with ONNX Runtime for Node.js (onnxruntime-node) at the
// settings in expected.json and compares every output with the values beside
// it, by the rule repro.py states. Exit: 1 while the discrepancy is present,
// 0 once fixed, 2 cannot test, 3 cannot judge.
// Run: NODE_PATH=<dir holding onnxruntime-node> node repro.js
'use strict';
const fs = require('fs');
const path = require('path');

let ort;
try {
  ort = require('onnxruntime-node');
} catch (e) {
  console.log(`cannot test: ${e.message} (npm install onnxruntime-node; set NODE_PATH)`);
  process.exit(2);
}

// .npy (version 1-3, C order, little-endian) -> {descr, shape, data}.
function loadNpy(name) {
  const buf = fs.readFileSync(path.join(__dirname, name));
  const major = buf[6];
  const headerLen = major === 1 ? buf.readUInt16LE(8) : buf.readUInt32LE(8);
  const start = major === 1 ? 10 : 12;
  const header = buf.toString('latin1', start, start + headerLen);
  const descr = /'descr':\s*'([^']+)'/.exec(header)[1];
  const shape = /'shape':\s*\(([^)]*)\)/.exec(header)[1].split(',')
      .map((s) => s.trim()).filter((s) => s).map(Number);
  const raw = buf.subarray(start + headerLen);
  const bytes = new Uint8Array(raw.length);
  bytes.set(raw);
  const views = {'<f2': Uint16Array, '<f4': Float32Array, '<f8': Float64Array,
                 '<i4': Int32Array, '<i8': BigInt64Array, '|b1': Uint8Array};
  if (!views[descr]) throw new Error(`${name}: unsupported dtype ${descr}`);
  return {descr, shape, data: new views[descr](bytes.buffer)};
}

const TENSOR_TYPES = {'<f2': 'float16', '<f4': 'float32', '<f8': 'float64', '<i4': 'int32',
                      '<i8': 'int64', '|b1': 'bool'};

function halfToNumber(h) {
  const s = h & 0x8000 ? -1 : 1, e = (h >> 10) & 0x1f, f = h & 0x3ff;
  if (e === 0) return s * f * 2 ** -24;
  if (e === 31) return f ? NaN : s * Infinity;
  return s * (1 + f / 1024) * 2 ** (e - 15);
}

// A tensor's elements as JS numbers.
function numbers(data, descr) {
  const out = new Array(data.length);
  for (let i = 0; i < data.length; ++i) {
    out[i] = descr === '<f2' && data instanceof Uint16Array ? halfToNumber(data[i]) :
        Number(data[i]);
  }
  return out;
}

// Three significant digits, as Python's %.3g.
const g3 = (x) => String(Number(x.toPrecision(3)));
const same = (a, b) => a === b || (Number.isNaN(a) && Number.isNaN(b));

// null when the output passes, else [exit code, one line].
function judge(result, out) {
  const ref = loadNpy(out.reference), fp64 = loadNpy(out.expected_fp64);
  const want = TENSOR_TYPES[ref.descr];
  if (result.type !== want || result.dims.join(',') !== ref.shape.join(',')) {
    return [1, `got ${result.type}[${result.dims}], expected ${want}[${ref.shape}]`];
  }
  const g = numbers(result.data, ref.descr), r = numbers(ref.data, ref.descr);
  const f = numbers(fp64.data, fp64.descr);
  if (!out.float) {
    const bad = g.map((v, i) => (v !== r[i] ? i : -1)).filter((i) => i >= 0);
    if (!bad.length) return null;
    return [1, `${bad.length} of ${g.length} elements differ; element ${bad[0]}: got ` +
                `${g[bad[0]]}, expected ${r[bad[0]]}`];
  }
  const tol = out.tol;
  const close = (a, b) => same(a, b) || Math.abs(a - b) <= tol + tol * Math.abs(b);
  if (g.every((v, i) => close(v, r[i]))) return null;
  let i = f.findIndex((v, k) => Number.isNaN(v) && !Number.isNaN(g[k]));
  if (i >= 0) return [3, `the fp64 values have NaN at element ${i} where the result is ${g[i]}`];
  i = g.findIndex((v, k) => !Number.isFinite(v) && Number.isFinite(f[k]));
  if (i >= 0) return [1, `non-finite result at element ${i}: got ${g[i]}, expected ${f[i]} (fp64)`];
  if (r.some((v, k) => !Number.isFinite(v) && Number.isFinite(f[k]))) {
    i = g.findIndex((v, k) => !(Math.abs(v - f[k]) <= tol + tol * Math.abs(f[k])));
    if (i < 0) return null;
    return [1, `element ${i}: got ${g[i]}, expected ${f[i]} (fp64)`];
  }
  let sum = 0, kept = 0, worst = 0, worstErr = -1;
  for (let k = 0; k < g.length; ++k) {
    if (Number.isNaN(f[k])) continue;
    const d = g[k] === f[k] ? 0 : g[k] - f[k];
    sum += d * d;
    ++kept;
    if (Math.abs(d) > worstErr) [worst, worstErr] = [k, Math.abs(d)];
  }
  const rmse = kept ? Math.sqrt(sum / kept) : 0;
  if (rmse <= out.bound) return null;
  return [1, `rmse vs fp64 ${g3(rmse)} > ${g3(out.bound)} (= ${out.m} x ` +
              `the own-dtype reference's rmse ${g3(out.rmse_reference)} + tol/10); ` +
              `worst element ${worst}: got ${g[worst]}, expected ${f[worst]} (fp64)`];
}

async function main() {
  const spec = JSON.parse(fs.readFileSync(path.join(__dirname, 'expected.json'), 'utf8'));
  const level = spec.options.graph_optimization_level || 'all';
  const providers = spec.device === 'cuda' ? ['cuda', 'cpu'] : ['cpu'];
  console.log(`onnxruntime-node ${ort.env.versions ? ort.env.versions.common : ''}, ` +
              `graph_optimization_level=${level}, providers ${providers.join(',')}`);
  let session, results;
  try {
    session = await ort.InferenceSession.create(path.join(__dirname, 'model.onnx'), {
      graphOptimizationLevel: level === 'disable' ? 'disabled' : level,
      intraOpNumThreads: Number(spec.options.intra_op_num_threads || 0),
      executionProviders: providers,
      logSeverityLevel: 3,
    });
    const feeds = {};
    session.inputNames.forEach((name, k) => {
      const t = loadNpy(spec.inputs[k]);
      feeds[name] = new ort.Tensor(TENSOR_TYPES[t.descr], t.data, t.shape);
    });
    results = await session.run(feeds);
  } catch (e) {  // the model is valid: a refusal is the failure
    if (spec.device === 'cuda' && /cuda/i.test(String(e.message)) && !session) {
      console.log(`cannot test: ${e.message}`);
      return 2;
    }
    console.log(`FAIL: ${e.message}`);
    return 1;
  }
  let code = 0;
  session.outputNames.forEach((name, k) => {
    const out = spec.outputs[k];
    const verdict = judge(results[name], out);
    if (!verdict) {
      console.log(`output ${out.name}: ok`);
    } else {
      console.log(`${verdict[0] === 1 ? 'FAIL' : 'CANNOT JUDGE'}: output ${out.name}: ${verdict[1]}`);
      code = verdict[0] === 1 ? 1 : (code || verdict[0]);
    }
  });
  console.log(code === 1 ? 'reproduces' : code === 0 ? 'does not reproduce' : 'cannot judge');
  return code;
}

main().then((code) => process.exit(code), (e) => {
  console.log(`cannot test: ${e.stack || e}`);
  process.exit(2);
});
