#!/usr/bin/env python3
"""Runs the real-model zoo (build_zoo.py's folders) through reprokit and compares
with PyTorch's recorded outputs.

For each ZOO/NAME/ with model.onnx, meta.json, input_K.npy and output_K.npy:
  1. `reprokit import model.onnx` (the import time is the importer's own figure);
  2. for each device (cpu, and cuda where reprokit finds a GPU):
     `reprokit capture model.onnx --inputs input_K.bin... --device D` (PyTorch's
     inputs, raw little-endian), `reprokit check BUNDLE --json` (the verdict against
     the fp64 reference), `reprokit run BUNDLE --json` (the outputs, printed in full
     with 6 significant digits) and the max relative error against PyTorch:
     max|reprokit - torch| / max|torch| per output, the largest over outputs;
  3. the first error of whatever step fails.
Writes OUT/results.json, OUT/table.md (the docs/ONNX.md table) and OUT/blockers.md
(the first errors grouped by cause, most models first).

Needs numpy (Debian's python3-numpy will do). Exit: 0 ran (whatever the verdicts),
2 bad usage, or with --require-pass TOL: 1 unless every model imports, passes check
on every device and matches PyTorch within TOL.

Usage: compare.py ZOO --reprokit PATH [--out DIR] [--only a,b] [--devices cpu,cuda]
"""
import argparse
import concurrent.futures as cf
import json
import os
import re
import subprocess
import sys
import time

import numpy as np


def sh(cmd, timeout):
    t = time.time()
    try:
        p = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout)
        return p.returncode, p.stdout, p.stderr, time.time() - t
    except subprocess.TimeoutExpired as e:
        out = e.stdout.decode(errors="replace") if isinstance(e.stdout, bytes) else (e.stdout or "")
        return 124, out, f"timed out after {timeout} s", time.time() - t


def first_error(stdout, stderr):
    lines = [l.strip() for l in (stderr + "\n" + stdout).splitlines() if l.strip()]
    for l in lines:
        if "unsupported op type" in l:  # the list follows on the next lines
            i = lines.index(l)
            return " ".join(lines[i:i + 6])
    return lines[0] if lines else "(no message)"


def raw_inputs(d, meta, work):
    """input_K.npy -> little-endian raw files in the export's input order."""
    files = []
    for k, spec in enumerate(meta["input_files"]):
        a = np.load(os.path.join(d, spec["file"]))
        if spec["dtype"] == "bfloat16":  # stored widened to f32, exactly: keep the top 16 bits
            a = (np.ascontiguousarray(a, dtype="<f4").view("<u4") >> 16).astype("<u2")
        else:
            a = a.astype(a.dtype.newbyteorder("<"))
        p = os.path.join(work, f"input_{k}.bin")
        a.tofile(p)
        files.append(p)
    return files


SUMMARY = re.compile(r"^(\w+)\[([0-9,]*)\].*\[([^\[\]]*)\]\s*$")


def parse_outputs(run_json):
    outs = []
    for o in json.loads(run_json)["outputs"]:
        m = SUMMARY.match(o["summary"].strip())
        if not m:
            raise ValueError(f"cannot read output {o.get('index')}: {o['summary'][:120]}")
        shape = [int(x) for x in m.group(2).split(",") if x]
        vals = [float(x) for x in m.group(3).split(",") if x.strip() and x.strip() != "..."]
        outs.append((m.group(1), shape, np.array(vals, np.float64)))
    return outs


def rel_err(got, want):
    want = np.asarray(want, np.float64).ravel()
    if got.size != want.size:
        return None, f"{got.size} values, PyTorch has {want.size}"
    scale = float(np.max(np.abs(want))) if want.size else 0.0
    diff = float(np.max(np.abs(got - want))) if want.size else 0.0
    return (diff / scale if scale > 0 else diff), None


def one(name, zoo, rk, out, devices, timeout, deadline):
    d = os.path.join(zoo, name)
    meta = json.load(open(os.path.join(d, "meta.json")))
    work = os.path.join(out, "work", name)
    os.makedirs(work, exist_ok=True)
    r = {"name": name, "family": meta["family"], "dtype": meta["dtype"], "source": meta["source"],
         "onnx_nodes": meta.get("nodes"), "ir_version": meta.get("ir_version"),
         "opsets": meta.get("opset_import"), "check": {}, "rel_err": {}, "error": None}
    if time.time() > deadline:
        r["error"] = "not run: --deadline passed"
        return r
    rc, so, se, secs = sh([rk, "import", os.path.join(d, "model.onnx"), "-o", os.path.join(work, "import")], timeout)
    m = re.search(r"\(import (\d+) ms", so)
    r["import_ms"] = int(m.group(1)) if m else None
    r["import_wall_s"] = round(secs, 3)
    m = re.search(r"(\d+) nodes", so)
    r["graph_nodes"] = int(m.group(1)) if m else None
    if rc != 0:
        r["import"] = f"exit {rc}"
        r["error"] = "import: " + first_error(so, se)
        return r
    r["import"] = "ok"
    try:
        inputs = raw_inputs(d, meta, work)
    except Exception as e:
        r["error"] = f"inputs: {type(e).__name__}: {e}"
        return r
    want = [np.load(os.path.join(d, o["file"])) for o in meta["output_files"]]
    for dev in devices:
        b = os.path.join(work, f"bundle_{dev}")
        args = [rk, "capture", os.path.join(d, "model.onnx"), "-o", b, "--device", dev]
        for f in inputs:
            args += ["--inputs", f]
        rc, so, se, _ = sh(args, timeout)
        if rc != 0:
            r["check"][dev] = "cannot judge" if rc == 125 else f"capture exit {rc}"
            r["error"] = r["error"] or f"capture ({dev}): " + first_error(so, se)
            continue
        rc, so, se, secs = sh([rk, "check", b, "--json"], timeout)
        try:
            v = json.loads(so)
            r["check"][dev] = v.get("kind", "?") + ("" if rc in (0, 1) else f" (exit {rc})")
            if v.get("kind") != "pass":
                r["error"] = r["error"] or f"check ({dev}): {v.get('signature')}: {v.get('message')}"
        except ValueError:
            r["check"][dev] = "cannot judge" if rc == 125 else f"exit {rc}"
            r["error"] = r["error"] or f"check ({dev}): " + first_error(so, se)
        rc, so, se, _ = sh([rk, "run", b, "--json", "--values", "1000000000"], timeout)
        if rc != 0:
            r["error"] = r["error"] or f"run ({dev}): " + first_error(so, se)
            continue
        try:
            got = parse_outputs(so)
        except Exception as e:
            r["error"] = r["error"] or f"run ({dev}): {e}"
            continue
        if len(got) != len(want):
            r["error"] = r["error"] or f"run ({dev}): {len(got)} outputs, PyTorch has {len(want)}"
            continue
        worst, why = 0.0, None
        for (_, _, g), w in zip(got, want):
            e, why = rel_err(g, w)
            if why:
                break
            worst = max(worst, e)
        if why:
            r["error"] = r["error"] or f"run ({dev}): {why}"
        else:
            r["rel_err"][dev] = worst
    return r


def gpu_devices(rk):
    rc, so, se, _ = sh([rk, "version"], 60)
    return ["cpu"] if "CUDA not usable" in so + se or rc != 0 else ["cpu", "cuda"]


def tolerance(dtype):
    return 1e-3 if dtype == "float32" else 1e-2


def verdict(r, devices):
    if r["error"]:
        return False
    return all(r["check"].get(d) == "pass" and r["rel_err"].get(d, 1.0) <= tolerance(r["dtype"]) for d in devices)


def table(results, devices):
    head = "| model | family | dtype | ONNX nodes | import | " + " | ".join(
        f"check {d.upper()}" for d in devices) + " | " + " | ".join(
        f"max rel err {d.upper()}" for d in devices) + " | why it fails |"
    rows = [head, "|" + " --- |" * (head.count("|") - 1)]
    for r in results:
        imp = f"{r['import_ms']} ms" if r.get("import") == "ok" and r.get("import_ms") is not None else (
            "refused" if r.get("import") else "-")
        checks = " | ".join(r["check"].get(d, "-") for d in devices)
        errs = " | ".join(f"{r['rel_err'][d]:.1e}" if d in r["rel_err"] else "-" for d in devices)
        why = (r["error"] or "").replace("|", "/")
        why = re.sub(r"^import: reprokit: import: \S+: ", "import: ", why)[:200]
        rows.append(f"| {r['name']} | {r['family']} | {r['dtype']} | {r['onnx_nodes']} | {imp} | {checks} | {errs} "
                    f"| {why} |")
    return "\n".join(rows) + "\n"


def blocker_keys(err):
    """The causes a first error names, normalized so models blocked by the same thing group."""
    if not err:
        return []
    ops = re.findall(r"(\w+) \(opset (\d+)\): \d+ nodes?", err)
    if ops:
        return [f"unsupported op {op} (opset {v})" for op, v in ops]
    e = re.sub(r"^(\w+(?: \(\w+\))?): reprokit: \w+: \S+: ", r"\1: ", err)
    e = re.sub(r"'[^']*'", "'…'", e)
    e = re.sub(r"\b(\w+)\[[0-9,]*\]", r"\1[…]", e)
    return [e[:160]]


def blockers(results):
    groups = {}
    for r in results:
        for k in blocker_keys(r["error"]):
            groups.setdefault(k, []).append(r["name"])
    rows = ["| blocks | cause | models |", "| --- | --- | --- |"]
    for k, names in sorted(groups.items(), key=lambda kv: (-len(kv[1]), kv[0])):
        rows.append(f"| {len(names)} | {k.replace('|', '/')} | {', '.join(names)} |")
    return "\n".join(rows) + "\n"


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("zoo")
    ap.add_argument("--reprokit", required=True)
    ap.add_argument("--out", default="zoo_results")
    ap.add_argument("--only", help="comma-separated model names")
    ap.add_argument("--devices", help="comma-separated; default cpu, plus cuda where reprokit finds a GPU")
    ap.add_argument("--timeout", type=float, default=300)
    ap.add_argument("--deadline", type=float, default=3600, help="seconds after which no model is started")
    ap.add_argument("--jobs", type=int, default=max(1, (os.cpu_count() or 2) // 2))
    ap.add_argument("--require-pass", type=float, metavar="TOL",
                    help="exit 1 unless every model passes and matches PyTorch within TOL")
    a = ap.parse_args()
    zoo = os.path.abspath(a.zoo)
    rk = os.path.abspath(a.reprokit)
    if not os.access(rk, os.X_OK):
        print(f"compare.py: {a.reprokit} is not an executable reprokit", file=sys.stderr)
        return 2
    names = sorted(n for n in os.listdir(zoo) if os.path.exists(os.path.join(zoo, n, "model.onnx"))
                   and os.path.exists(os.path.join(zoo, n, "meta.json")))
    if a.only:
        want = a.only.split(",")
        missing = [n for n in want if n not in names]
        if missing:
            print(f"compare.py: not in {zoo}: {', '.join(missing)}", file=sys.stderr)
            return 2
        names = want
    if not names:
        print(f"compare.py: no model folders (model.onnx + meta.json) in {zoo}", file=sys.stderr)
        return 2
    devices = a.devices.split(",") if a.devices else gpu_devices(rk)
    os.makedirs(a.out, exist_ok=True)
    t0 = time.time()
    with cf.ThreadPoolExecutor(a.jobs) as pool:
        results = list(pool.map(lambda n: one(n, zoo, rk, a.out, devices, a.timeout, t0 + a.deadline), names))
    passed = [r for r in results if verdict(r, devices)]
    imported = [r for r in results if r.get("import") == "ok"]
    summary = (f"{len(results)} models: {len(imported)} import, {len(passed)} pass check on "
               f"{'+'.join(devices)} and match PyTorch (f32 1e-3, f16/bf16 1e-2); {time.time() - t0:.0f} s")
    with open(os.path.join(a.out, "results.json"), "w") as f:
        json.dump({"devices": devices, "summary": summary, "models": results}, f, indent=1, sort_keys=True)
    with open(os.path.join(a.out, "table.md"), "w") as f:
        f.write(table(results, devices))
    with open(os.path.join(a.out, "blockers.md"), "w") as f:
        f.write(blockers(results))
    print(table(results, devices))
    print(blockers(results))
    print(summary)
    if a.require_pass is not None:
        bad = [r["name"] for r in results if r["error"] or any(
            r["check"].get(d) != "pass" or r["rel_err"].get(d, 1.0) > a.require_pass for d in devices)]
        if bad:
            print(f"FAIL: {', '.join(bad)}", file=sys.stderr)
            return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
