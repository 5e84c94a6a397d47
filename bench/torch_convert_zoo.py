#!/usr/bin/env python3
"""torchvision models through reprokit_torch.save and `reprokit check` / `run`
(docs/PYTORCH.md, "Real models"): per model, the ATen graph make_fx traces (and
for ResNet-18 the forward and backward graphs of a training step from AOT
autograd), converted, judged by `reprokit check` with the built-in compiler, and
`reprokit run`'s first output compared with torch's eager one (largest error
relative to the output's largest magnitude). Needs torch and torchvision
(Debian: python3-torch, python3-torchvision); not a CI test.

  torch_convert_zoo.py --out DIR [--reprokit PATH] [--models resnet18,...] [--timeout S]
"""

import argparse
import json
import os
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(os.path.dirname(HERE), "python"))

MODELS = ("resnet18", "mobilenet_v2", "vgg11", "squeezenet1_0", "densenet121",
          "shufflenet_v2_x0_5", "efficientnet_b0", "convnext_tiny", "swin_t", "vit_b_16")
SIZE = {"swin_t": 224, "vit_b_16": 224}


def run_first_output(reprokit, bundle, timeout):
    p = subprocess.run([reprokit, "run", bundle, "--json", "--values", "100000000"],
                       capture_output=True, text=True, timeout=timeout)
    if p.returncode != 0:
        return None
    summary = json.loads(p.stdout)["outputs"][0]["summary"]
    body = summary[summary.index("[", summary.index("]") + 1) + 1:summary.rindex("]")]
    return [float(v) for v in body.split(",") if v.strip() not in ("", "...")]


def measure(name, gm, inputs, want, args):
    import reprokit_torch
    row = {"model": name}
    started = time.monotonic()
    try:
        path = reprokit_torch.save(gm, inputs, os.path.join(args.out, name), judge=False)
    except reprokit_torch.UnsupportedOpsError as e:
        row["unsupported"] = [list(op) for op in e.ops]
        return row
    row["save_seconds"] = round(time.monotonic() - started, 1)
    with open(os.path.join(path, "graph.rk")) as f:
        row["nodes"] = sum(1 for line in f if " = " in line)
    try:
        p = subprocess.run([args.reprokit, "check", path, "--timeout", str(args.timeout)],
                           capture_output=True, text=True, timeout=3 * args.timeout)
        row["check"] = next((l.split(":", 1)[1].strip() for l in p.stdout.splitlines()
                             if l.startswith("verdict:")), "exit %d" % p.returncode)
        got = run_first_output(args.reprokit, path, 3 * args.timeout)
    except subprocess.TimeoutExpired:
        row["check"] = "over %d s" % (3 * args.timeout)
        got = None
    if got is not None:
        want = [float(v) for v in want.detach().double().reshape(-1).tolist()]
        scale = max(abs(v) for v in want) or 1.0
        row["max_error_vs_torch"] = max(abs(g - w) for g, w in zip(got, want)) / scale
    return row


def main(argv):
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--out", required=True)
    p.add_argument("--reprokit", default=os.path.join(os.path.dirname(HERE), "bazel-bin",
                                                     "tools", "reprokit"))
    p.add_argument("--models", default=",".join(MODELS) + ",resnet18_train")
    p.add_argument("--timeout", type=int, default=300)
    args = p.parse_args(argv)
    import torch
    import torch.nn.functional as F
    import torchvision
    from torch.fx.experimental.proxy_tensor import make_fx
    os.makedirs(args.out, exist_ok=True)
    rows = []
    for name in args.models.split(","):
        torch.manual_seed(0)
        if name == "resnet18_train":
            rows.extend(train_step(args, measure))
            continue
        model = getattr(torchvision.models, name)().eval()
        x = torch.randn(1, 3, SIZE.get(name, 64), SIZE.get(name, 64))
        with torch.no_grad():
            want = model(x)
            gm = make_fx(model)(x)
        rows.append(measure(name, gm, [x], want, args))
        print(json.dumps(rows[-1]), flush=True)
    with open(os.path.join(args.out, "torch_convert_zoo.json"), "w") as f:
        json.dump(rows, f, indent=2)
    return 0


def train_step(args, measure_fn):
    import torch
    import torch.nn.functional as F
    import torchvision
    from functorch.compile import aot_function, make_boxed_func
    model = torchvision.models.resnet18()
    names = [n for n, _ in model.named_parameters()]
    buffers = dict(model.named_buffers())
    graphs = {}

    def keep(kind):
        def compiler(gm, example_inputs):
            graphs[kind] = gm
            return make_boxed_func(gm.forward)
        return compiler

    def step(*args_):
        params = dict(zip(names, args_[:-1]))
        params.update(buffers)
        out = torch.nn.utils.stateless.functional_call(model, params, (args_[-1],))
        return F.cross_entropy(out, torch.tensor([1, 2]))
    leaves = [p.detach().clone().requires_grad_(True) for p in model.parameters()]
    x = torch.randn(2, 3, 64, 64)
    loss = aot_function(step, keep("forward"), keep("backward"))(*leaves, x)
    loss.backward()
    fw_inputs = [p.detach() for p in leaves] + [x]
    with torch.no_grad():
        fw_out = graphs["forward"](*fw_inputs)
    rows = [measure_fn("resnet18_train_forward", graphs["forward"], fw_inputs, loss, args)]
    bw_inputs = [t.detach() for t in fw_out[1:]] + [torch.ones(())]
    rows.append(measure_fn("resnet18_train_backward", graphs["backward"], bw_inputs,
                           leaves[0].grad, args))
    for r in rows:
        print(json.dumps(r), flush=True)
    return rows


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
