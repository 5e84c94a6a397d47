#!/usr/bin/env python3
"""Which ATen ops of the graphs Inductor compiles does reprokit_torch map? (torch 2.x)

For each model (torchvision / transformers classes, random weights, nothing
downloaded), torch.compile with Inductor's own decompositions and AOT autograd,
and at Inductor's inner compile (where reprokit_torch's backend captures) the
graph is converted with reprokit_torch.convert instead of compiled: eager runs
it, so a model costs its tracing only. Training models give a forward and a
backward graph. Per graph: nodes, and either "maps" or every unsupported op
with its count and first node; then the union over all models.

    torch_inductor_coverage.py [--models a,b] [--device cuda|cpu] [--out DIR]

Prints a Markdown table (also DIR/torch_inductor_coverage.md and .json).
Exit 0 when every graph maps, 1 otherwise, 2 for bad arguments.
"""
import argparse
import collections
import json
import os
import sys
import time
import traceback

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
MODELS = ("resnet18", "resnet18_train", "mobilenet_v2", "efficientnet_b0", "convnext_tiny",
          "swin_t", "vit_b_16", "gpt2", "bert", "distilbert")


def build(name, device):
    """(module, inputs, is_training)."""
    import torch
    torch.manual_seed(0)
    training = name.endswith("_train")
    base = name[:-len("_train")] if training else name
    if base in ("resnet18", "mobilenet_v2", "efficientnet_b0", "convnext_tiny", "swin_t",
                "vit_b_16"):
        import torchvision
        model = getattr(torchvision.models, base)(weights=None)
        size = 224 if base in ("swin_t", "vit_b_16") else 64
        x = torch.randn(2, 3, size, size)
        model = model.train() if training else model.eval()
        return model.to(device), [x.to(device)], training
    ids = torch.randint(0, 1000, (2, 32))
    if base == "gpt2":
        from transformers import GPT2Config, GPT2LMHeadModel
        config = GPT2Config(n_layer=2, n_head=4, n_embd=128, vocab_size=1000, n_positions=64)
        model = GPT2LMHeadModel(config)
    elif base == "bert":
        from transformers import BertConfig, BertModel
        model = BertModel(BertConfig(num_hidden_layers=2, hidden_size=128, num_attention_heads=4,
                                     intermediate_size=256, vocab_size=1000))
    elif base == "distilbert":
        from transformers import DistilBertConfig, DistilBertModel
        model = DistilBertModel(DistilBertConfig(n_layers=2, dim=128, n_heads=4, hidden_dim=256,
                                                 vocab_size=1000))
    else:
        raise ValueError("unknown model " + name)

    class Outputs(torch.nn.Module):
        def __init__(self, m):
            super().__init__()
            self.m = m

        def forward(self, ids):
            out = self.m(ids)
            return out[0] if isinstance(out, tuple) else (
                out.logits if hasattr(out, "logits") else out.last_hidden_state)
    model = Outputs(model)
    return (model.train() if training else model.eval()).to(device), [ids.to(device)], training


def survey(name, device):
    import torch
    sys.path.insert(0, os.path.join(ROOT, "python"))
    from reprokit_torch import capture
    # The module (reprokit_torch.convert, the name, is the function).
    from reprokit_torch.convert import UnsupportedOpsError, convert as convert_graph
    from torch._inductor.compile_fx import compile_fx
    graphs = []

    def inner_compile(gm, example_inputs, **kw):
        kind = "backward" if kw.get("is_backward") else "forward"
        row = {"graph": kind, "nodes": sum(1 for n in gm.graph.nodes if n.op == "call_function")}
        try:
            with capture.real_mode():
                convert_graph(gm, capture.real_inputs(example_inputs), name, random="inputs")
            row["maps"] = True
        except UnsupportedOpsError as e:
            row["maps"] = False
            row["unsupported"] = [{"op": op, "count": c, "first": f, "reason": r}
                                  for op, c, f, r in e.ops]
        except Exception as e:  # a converter crash is ours to fix: recorded, not hidden
            row["maps"] = False
            row["error"] = "%s: %s" % (type(e).__name__, str(e).splitlines()[0][:300])
            row["traceback"] = traceback.format_exc()[-2000:]
        graphs.append(row)
        from torch._functorch.aot_autograd import make_boxed_func
        return make_boxed_func(gm)

    def backend(gm, example_inputs):
        return compile_fx(gm, example_inputs, inner_compile=inner_compile)

    model, inputs, training = build(name, device)
    torch._dynamo.reset()
    compiled = torch.compile(model, backend=backend)
    if training:
        out = compiled(*inputs)
        out.float().pow(2).mean().backward()
    else:
        with torch.no_grad():
            compiled(*inputs)
    return graphs


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--models", default=",".join(MODELS))
    ap.add_argument("--device", default="cuda", choices=["cpu", "cuda"])
    ap.add_argument("--out")
    a = ap.parse_args()
    import torch
    rows, union, all_map = [], collections.Counter(), True
    for name in a.models.split(","):
        t0 = time.monotonic()
        try:
            graphs = survey(name, a.device)
        except Exception as e:
            graphs = [{"graph": "-", "maps": False,
                       "error": "%s: %s" % (type(e).__name__, str(e).splitlines()[0][:300])}]
        for g in graphs:
            all_map = all_map and g["maps"]
            for u in g.get("unsupported", []):
                union[u["op"]] += u["count"]
        rows.append({"model": name, "seconds": round(time.monotonic() - t0, 1), "graphs": graphs})
        print("%s: %s" % (name, ", ".join("%s %d nodes %s" % (
            g["graph"], g.get("nodes", 0), "maps" if g["maps"] else "NO") for g in graphs)),
            flush=True)
    lines = ["torch %s, %s, Inductor's decompositions (the graph its inner compile sees)"
             % (torch.__version__, a.device), "",
             "| model | graph | call_function nodes | maps | unsupported (count, first node) |",
             "| --- | --- | --- | --- | --- |"]
    for r in rows:
        for g in r["graphs"]:
            what = "; ".join("`%s` x%d (%s)%s" % (u["op"], u["count"], u["first"],
                                                   ": " + u["reason"] if u["reason"] else "")
                             for u in g.get("unsupported", [])) or g.get("error", "")
            lines.append("| %s | %s | %s | %s | %s |" % (r["model"], g["graph"], g.get("nodes", "-"),
                                                         "yes" if g["maps"] else "no", what))
    lines += ["", "Unsupported over all models: " + (", ".join(
        "`%s` x%d" % kv for kv in union.most_common()) or "none")]
    text = "\n".join(lines)
    print(text)
    if a.out:
        os.makedirs(a.out, exist_ok=True)
        with open(os.path.join(a.out, "torch_inductor_coverage.md"), "w") as f:
            f.write(text + "\n")
        with open(os.path.join(a.out, "torch_inductor_coverage.json"), "w") as f:
            json.dump(rows, f, indent=1)
    return 0 if all_map else 1


if __name__ == "__main__":
    sys.exit(main())
