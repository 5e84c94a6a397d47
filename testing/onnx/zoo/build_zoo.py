#!/usr/bin/env python3
"""Builds the real-model zoo: architectures from torchvision, timm, transformers,
torchaudio and plain torch modules, each with random weights (nothing is
downloaded) and a small input, exported with torch.onnx.export's DEFAULT exporter
(torch >= 2.9: the dynamo exporter, external data on), with PyTorch's own outputs
on the same inputs saved beside the model.

Needs: torch, torchvision, onnx, onnxscript; timm, transformers, torchaudio and
onnxruntime where installed (a model whose package is missing is logged as failed).

Writes, under ZOO (one folder per model):
  NAME/model.onnx (+ model.onnx.data)  the export, as torch wrote it
  NAME/input_K.npy                     the inputs, in the model's input order
  NAME/output_K.npy                    PyTorch's outputs (bf16 stored widened to f32)
  NAME/output_K.f32.npy                low-precision models only: the same weights in f32
  NAME/meta.json                       what was built, how, and the census of the export
and, with --out DIR: census.json, census.md, build.log and up to 4 zoo_N.tar.gz (the
models that fit the size budget, with their inputs and outputs).

Usage: build_zoo.py ZOO [--out DIR] [--only a,b] [--jobs N] [--deadline SECONDS]
compare.py (beside this file) imports and checks the zoo with reprokit.
"""
import argparse
import io
import json
import multiprocessing as mp
import os
import sys
import tarfile
import time
import traceback

ZOO = {}  # name -> (family, source, builder, dtype)


def zoo(name, family, source, dtype="float32"):
    def register(fn):
        ZOO[name] = (family, source, fn, dtype)
        return fn
    return register


def first_ok(*candidates):
    """(label, thunk) pairs: the first thunk that builds wins; returns (model, label)."""
    errors = []
    for label, thunk in candidates:
        try:
            return thunk(), label
        except Exception as e:  # a shrunk config the installed version refuses
            errors.append(f"{label}: {type(e).__name__}: {e}")
    raise RuntimeError("no variant builds: " + " | ".join(errors))


# ---------------------------------------------------------------- wrappers
def _wrappers():
    import torch
    from torch import nn

    class Image(nn.Module):
        """Returns one tensor of a model that returns a dict, tuple or ModelOutput."""
        def __init__(self, m, key=None):
            super().__init__()
            self.m, self.key = m, key

        def forward(self, image):
            o = self.m(image)
            if isinstance(o, dict) or hasattr(o, "keys"):
                return o[self.key]
            if isinstance(o, (tuple, list)):
                return o[0]
            return o

    class CausalLM(nn.Module):
        def __init__(self, m):
            super().__init__()
            self.m = m

        def forward(self, input_ids):
            return self.m(input_ids=input_ids, use_cache=False).logits

    class Encoder(nn.Module):
        def __init__(self, m):
            super().__init__()
            self.m = m

        def forward(self, input_ids, attention_mask):
            return self.m(input_ids=input_ids, attention_mask=attention_mask).last_hidden_state

    class Seq2Seq(nn.Module):
        def __init__(self, m):
            super().__init__()
            self.m = m

        def forward(self, input_ids, decoder_input_ids):
            return self.m(input_ids=input_ids, decoder_input_ids=decoder_input_ids,
                          use_cache=False).logits

    class PixelLogits(nn.Module):
        def __init__(self, m):
            super().__init__()
            self.m = m

        def forward(self, pixel_values):
            return self.m(pixel_values=pixel_values).logits

    class Features(nn.Module):
        def __init__(self, m):
            super().__init__()
            self.m = m

        def forward(self, input_features):
            return self.m(input_features).last_hidden_state

    return dict(Image=Image, CausalLM=CausalLM, Encoder=Encoder, Seq2Seq=Seq2Seq,
                PixelLogits=PixelLogits, Features=Features)


def image(n=64):
    import torch
    return (torch.randn(1, 3, n, n),)


def token_ids(vocab=1000, n=16):
    import torch
    return (torch.randint(0, vocab, (1, n), dtype=torch.int64),)


def ids_and_mask(vocab=1000, n=16):
    import torch
    ids = torch.randint(0, vocab, (1, n), dtype=torch.int64)
    mask = torch.ones(1, n, dtype=torch.int64)
    mask[0, -3:] = 0  # padded tail: the mask is used, not constant-folded
    return ids, mask


# ---------------------------------------------------------------- CNNs (torchvision)
@zoo("resnet18", "cnn", "torchvision")
def _():
    import torchvision
    return torchvision.models.resnet18(weights=None, num_classes=10), image(), "resnet18(num_classes=10)"


@zoo("mobilenet_v3_small", "cnn", "torchvision")
def _():
    import torchvision
    m, v = first_ok(
        ("width_mult=0.5", lambda: torchvision.models.mobilenet_v3_small(weights=None, num_classes=10, width_mult=0.5)),
        ("default", lambda: torchvision.models.mobilenet_v3_small(weights=None, num_classes=10)))
    return m, image(), v


@zoo("mobilenet_v2", "cnn", "torchvision")
def _():
    import torchvision
    return torchvision.models.mobilenet_v2(weights=None, num_classes=10, width_mult=0.5), image(), "width_mult=0.5"


@zoo("efficientnet_b0", "cnn", "torchvision")
def _():
    import torchvision
    from torchvision.models import efficientnet as E

    def shrunk():
        setting, last = E._efficientnet_conf("efficientnet_b0", width_mult=0.5, depth_mult=0.5)
        return E.EfficientNet(setting, 0.2, last_channel=last, num_classes=10)
    m, v = first_ok(("b0 conf, width 0.5, depth 0.5", shrunk),
                    ("efficientnet_b0", lambda: torchvision.models.efficientnet_b0(weights=None, num_classes=10)))
    return m, image(), v


@zoo("convnext", "cnn", "torchvision")
def _():
    from torchvision.models.convnext import ConvNeXt, CNBlockConfig
    cfg = [CNBlockConfig(24, 48, 1), CNBlockConfig(48, 96, 1), CNBlockConfig(96, 192, 2), CNBlockConfig(192, None, 1)]
    return ConvNeXt(cfg, stochastic_depth_prob=0.0, num_classes=10), image(), "ConvNeXt dims 24-192, depths 1,1,2,1"


@zoo("squeezenet1_1", "cnn", "torchvision")
def _():
    import torchvision
    return torchvision.models.squeezenet1_1(weights=None, num_classes=10), image(), "num_classes=10 (ceil_mode max pools)"


@zoo("googlenet", "cnn", "torchvision")
def _():
    import torchvision
    return (torchvision.models.googlenet(weights=None, aux_logits=False, init_weights=True, num_classes=10),
            image(), "aux_logits=False, num_classes=10 (ceil_mode max pools)")


@zoo("regnet", "cnn", "torchvision")
def _():
    import torchvision
    from torchvision.models.regnet import RegNet, BlockParams

    def shrunk():
        p = BlockParams.from_init_params(depth=6, w_0=16, w_a=8.0, w_m=2.0, group_width=8, se_ratio=0.25)
        return RegNet(p, num_classes=10)
    m, v = first_ok(("RegNetY depth 6, w_0 16, group 8, SE", shrunk),
                    ("regnet_y_400mf", lambda: torchvision.models.regnet_y_400mf(weights=None, num_classes=10)))
    return m, image(), v


@zoo("densenet", "cnn", "torchvision")
def _():
    from torchvision.models.densenet import DenseNet
    return (DenseNet(growth_rate=12, block_config=(2, 2, 2, 2), num_init_features=24, num_classes=10),
            image(), "DenseNet growth 12, blocks 2,2,2,2")


@zoo("shufflenet_v2", "cnn", "torchvision")
def _():
    import torchvision
    return torchvision.models.shufflenet_v2_x0_5(weights=None, num_classes=10), image(), "x0_5, num_classes=10"


@zoo("mnasnet", "cnn", "torchvision")
def _():
    import torchvision
    return torchvision.models.mnasnet0_5(weights=None, num_classes=10), image(), "0_5, num_classes=10"


# ---------------------------------------------------------------- CNNs and ViTs (timm)
@zoo("timm_resnet50d", "cnn", "timm")
def _():
    import timm
    from timm.models import resnet as R
    m, v = first_ok(
        ("ResNet-D bottleneck, channels 16-128, layers 1,1,1,1",
         lambda: R.ResNet(block=R.Bottleneck, layers=[1, 1, 1, 1], channels=(16, 32, 64, 128), stem_width=16,
                          stem_type="deep", avg_down=True, num_classes=10)),
        ("resnet10t", lambda: timm.create_model("resnet10t", pretrained=False, num_classes=10)),
        ("resnet50d", lambda: timm.create_model("resnet50d", pretrained=False, num_classes=10)))
    return m, image(), v


@zoo("deit_tiny", "vit", "timm")
def _():
    import timm
    return (timm.create_model("deit_tiny_patch16_224", pretrained=False, img_size=32, patch_size=8, depth=2,
                              num_classes=10), image(32), "img 32, patch 8, depth 2")


@zoo("mlp_mixer", "vit", "timm")
def _():
    import timm
    from timm.models.mlp_mixer import MlpMixer  # create_model's mixer_s16_224 fixes patch_size
    return (MlpMixer(img_size=32, patch_size=8, num_blocks=2, embed_dim=64, num_classes=10), image(32),
            "MlpMixer img 32, patch 8, 2 blocks, dim 64")


@zoo("beit", "vit", "timm")
def _():
    import timm
    return (timm.create_model("beit_base_patch16_224", pretrained=False, img_size=32, patch_size=8, embed_dim=64,
                              depth=2, num_heads=2, num_classes=10), image(32),
            "img 32, patch 8, dim 64, depth 2 (relative position bias)")


@zoo("beit_unfused", "vit", "timm")
def _():
    m, x, v = ZOO["beit"][2]()
    for mod in m.modules():  # attention as matmul + softmax instead of scaled_dot_product_attention
        if hasattr(mod, "fused_attn"):
            mod.fused_attn = False
    return m, x, v + ", fused_attn off"


@zoo("mobilevit", "vit", "timm")
def _():
    import timm
    return timm.create_model("mobilevit_xxs", pretrained=False, num_classes=10), image(64), "xxs, num_classes=10"


# ---------------------------------------------------------------- ViTs (torchvision)
def _tv_vit():
    from torchvision.models.vision_transformer import VisionTransformer
    return VisionTransformer(image_size=32, patch_size=8, num_layers=2, num_heads=4, hidden_dim=64, mlp_dim=128,
                             num_classes=10)


@zoo("vit", "vit", "torchvision")
def _():
    return _tv_vit(), image(32), "img 32, patch 8, 2 layers, dim 64"


@zoo("swin", "vit", "torchvision")
def _():
    from torchvision.models.swin_transformer import SwinTransformer
    return (SwinTransformer(patch_size=[4, 4], embed_dim=32, depths=[2, 2], num_heads=[2, 4], window_size=[4, 4],
                            stochastic_depth_prob=0.0, num_classes=10), image(64),
            "dim 32, depths 2,2, window 4 (shifted windows)")


# ---------------------------------------------------------------- LMs (transformers)
def _lm_cfg(cls, **extra):
    base = dict(vocab_size=1000, hidden_size=64, intermediate_size=128, num_hidden_layers=2, num_attention_heads=4,
                num_key_value_heads=2, max_position_embeddings=128, use_cache=False)
    base.update(extra)
    return cls(**base)


def _causal(cfg_name, **extra):
    import transformers
    W = _wrappers()
    cfg = _lm_cfg(getattr(transformers, cfg_name), **extra)
    m = transformers.AutoModelForCausalLM.from_config(cfg)
    return W["CausalLM"](m), token_ids(), f"{cfg_name}: 2 layers, hidden 64, vocab 1000"


@zoo("gpt2", "lm", "transformers")
def _():
    import transformers
    W = _wrappers()
    cfg = transformers.GPT2Config(vocab_size=1000, n_positions=128, n_embd=64, n_layer=2, n_head=4, use_cache=False)
    return W["CausalLM"](transformers.GPT2LMHeadModel(cfg)), token_ids(), "GPT2Config: 2 layers, n_embd 64"


@zoo("llama", "lm", "transformers")
def _():
    return _causal("LlamaConfig")


@zoo("mistral", "lm", "transformers")
def _():
    return _causal("MistralConfig", sliding_window=8)


@zoo("qwen2", "lm", "transformers")
def _():
    return _causal("Qwen2Config")


@zoo("gemma", "lm", "transformers")
def _():
    return _causal("GemmaConfig", head_dim=16)


@zoo("phi3", "lm", "transformers")
def _():
    return _causal("Phi3Config", pad_token_id=0)


@zoo("opt", "lm", "transformers")
def _():
    import transformers
    W = _wrappers()
    cfg = transformers.OPTConfig(vocab_size=1000, hidden_size=64, ffn_dim=128, num_hidden_layers=2,
                                 num_attention_heads=4, max_position_embeddings=128, word_embed_proj_dim=64,
                                 use_cache=False)
    return W["CausalLM"](transformers.OPTForCausalLM(cfg)), token_ids(), "OPTConfig: 2 layers, hidden 64"


@zoo("gpt_neox", "lm", "transformers")
def _():
    import transformers
    W = _wrappers()
    cfg = transformers.GPTNeoXConfig(vocab_size=1000, hidden_size=64, intermediate_size=128, num_hidden_layers=2,
                                     num_attention_heads=4, max_position_embeddings=128, rotary_pct=0.25,
                                     use_cache=False)
    return W["CausalLM"](transformers.GPTNeoXForCausalLM(cfg)), token_ids(), "GPTNeoXConfig: 2 layers, rotary 0.25"


@zoo("bert", "lm", "transformers")
def _():
    import transformers
    W = _wrappers()
    cfg = transformers.BertConfig(vocab_size=1000, hidden_size=64, num_hidden_layers=2, num_attention_heads=4,
                                  intermediate_size=128, max_position_embeddings=128)
    return W["Encoder"](transformers.BertModel(cfg)), ids_and_mask(), "BertConfig: 2 layers, hidden 64"


@zoo("distilbert", "lm", "transformers")
def _():
    import transformers
    W = _wrappers()
    cfg = transformers.DistilBertConfig(vocab_size=1000, dim=64, n_layers=2, n_heads=4, hidden_dim=128,
                                        max_position_embeddings=128)
    return W["Encoder"](transformers.DistilBertModel(cfg)), ids_and_mask(), "DistilBertConfig: 2 layers, dim 64"


@zoo("roberta", "lm", "transformers")
def _():
    import transformers
    W = _wrappers()
    cfg = transformers.RobertaConfig(vocab_size=1000, hidden_size=64, num_hidden_layers=2, num_attention_heads=4,
                                     intermediate_size=128, max_position_embeddings=130, pad_token_id=1)
    return W["Encoder"](transformers.RobertaModel(cfg)), ids_and_mask(), "RobertaConfig: 2 layers, hidden 64"


@zoo("t5", "lm", "transformers")
def _():
    import torch
    import transformers
    W = _wrappers()
    cfg = transformers.T5Config(vocab_size=1000, d_model=64, d_kv=16, d_ff=128, num_layers=2, num_decoder_layers=2,
                                num_heads=4, use_cache=False)
    ids = torch.randint(0, 1000, (1, 16), dtype=torch.int64)
    dec = torch.randint(0, 1000, (1, 8), dtype=torch.int64)
    return W["Seq2Seq"](transformers.T5ForConditionalGeneration(cfg)), (ids, dec), "T5Config: 2+2 layers, d_model 64"


@zoo("t5_eager", "lm", "transformers")
def _():
    import torch
    import transformers
    W = _wrappers()
    kw = dict(vocab_size=1000, d_model=64, d_kv=16, d_ff=128, num_layers=2, num_decoder_layers=2, num_heads=4,
              use_cache=False)

    def eager():
        cfg = transformers.T5Config(**kw)
        cfg._attn_implementation = "eager"
        return transformers.T5ForConditionalGeneration(cfg)
    m, v = first_ok(("attn_implementation=eager", lambda: transformers.T5ForConditionalGeneration(
        transformers.T5Config(attn_implementation="eager", **kw))), ("_attn_implementation=eager", eager))
    ids = torch.randint(0, 1000, (1, 16), dtype=torch.int64)
    dec = torch.randint(0, 1000, (1, 8), dtype=torch.int64)
    return W["Seq2Seq"](m), (ids, dec), "T5Config: 2+2 layers, d_model 64, " + v


@zoo("t5_encoder", "lm", "transformers")
def _():
    import transformers
    W = _wrappers()
    cfg = transformers.T5Config(vocab_size=1000, d_model=64, d_kv=16, d_ff=128, num_layers=2, num_heads=4,
                                use_cache=False)
    return W["Encoder"](transformers.T5EncoderModel(cfg)), ids_and_mask(), "T5EncoderModel: 2 layers, d_model 64"


@zoo("hf_vit", "vit", "transformers")
def _():
    import transformers
    W = _wrappers()
    cfg = transformers.ViTConfig(hidden_size=64, num_hidden_layers=2, num_attention_heads=4, intermediate_size=128,
                                 image_size=32, patch_size=8, num_labels=10)
    return W["PixelLogits"](transformers.ViTForImageClassification(cfg)), image(32), "ViTConfig: 2 layers, img 32"


# ---------------------------------------------------------------- audio
@zoo("whisper_encoder", "audio", "transformers")
def _():
    import torch
    import transformers
    W = _wrappers()
    cfg = transformers.WhisperConfig(vocab_size=1000, num_mel_bins=16, encoder_layers=2, encoder_attention_heads=4,
                                     decoder_layers=1, decoder_attention_heads=4, d_model=64, encoder_ffn_dim=128,
                                     decoder_ffn_dim=128, max_source_positions=32, max_target_positions=32,
                                     pad_token_id=0, bos_token_id=1, eos_token_id=2, decoder_start_token_id=1)
    enc = transformers.WhisperModel(cfg).get_encoder()
    return W["Features"](enc), (torch.randn(1, 16, 64),), "WhisperConfig encoder: 16 mel bins, 64 frames, 2 layers"


@zoo("wav2vec2", "audio", "torchaudio")
def _():
    import torch
    import torchaudio
    W = _wrappers()
    m = torchaudio.models.wav2vec2_model(
        extractor_mode="group_norm", extractor_conv_layer_config=[(32, 10, 5), (32, 3, 2), (32, 3, 2)],
        extractor_conv_bias=False, encoder_embed_dim=64, encoder_projection_dropout=0.0,
        encoder_pos_conv_kernel=16, encoder_pos_conv_groups=4, encoder_num_layers=2, encoder_num_heads=4,
        encoder_attention_dropout=0.0, encoder_ff_interm_features=128, encoder_ff_interm_dropout=0.0,
        encoder_dropout=0.0, encoder_layer_norm_first=False, encoder_layer_drop=0.0, aux_num_out=None)
    return W["Image"](m), (torch.randn(1, 1600),), "wav2vec2_model: 3 conv layers, 2 encoder layers, dim 64"


@zoo("conv1d_audio", "audio", "torch")
def _():
    import torch
    from torch import nn
    m = nn.Sequential(
        nn.Conv1d(1, 16, 80, stride=4), nn.BatchNorm1d(16), nn.ReLU(), nn.MaxPool1d(4),
        nn.Conv1d(16, 32, 3), nn.BatchNorm1d(32), nn.ReLU(), nn.MaxPool1d(4, ceil_mode=True),
        nn.Conv1d(32, 32, 3, padding=1), nn.BatchNorm1d(32), nn.ReLU(), nn.AvgPool1d(2),
        nn.AdaptiveAvgPool1d(1), nn.Flatten(), nn.Linear(32, 10))
    return m, (torch.randn(1, 1, 2000),), "M5-style 1-D conv net"


@zoo("lstm", "audio", "torch")
def _():
    import torch
    from torch import nn

    class Tagger(nn.Module):
        def __init__(self):
            super().__init__()
            self.rnn = nn.LSTM(16, 32, num_layers=1, batch_first=True)
            self.head = nn.Linear(32, 10)

        def forward(self, x):
            return self.head(self.rnn(x)[0])
    return Tagger(), (torch.randn(1, 12, 16),), "LSTM(16, 32) + Linear"


# ---------------------------------------------------------------- video, segmentation, generative
@zoo("conv3d_video", "video", "torch")
def _():
    import torch
    from torch import nn
    m = nn.Sequential(
        nn.Conv3d(3, 16, (3, 7, 7), stride=(1, 2, 2), padding=(1, 3, 3)), nn.BatchNorm3d(16), nn.ReLU(),
        nn.MaxPool3d((1, 3, 3), stride=(1, 2, 2), padding=(0, 1, 1)),
        nn.Conv3d(16, 32, 3, stride=2, padding=1), nn.BatchNorm3d(32), nn.ReLU(),
        nn.AvgPool3d(2), nn.AdaptiveAvgPool3d(1), nn.Flatten(), nn.Linear(32, 10))
    return m, (torch.randn(1, 3, 8, 32, 32),), "R3D-style stem + 3-D conv, pools"


@zoo("lraspp", "segmentation", "torchvision")
def _():
    import torchvision
    from torchvision.models.segmentation import lraspp as L
    W = _wrappers()
    m, v = first_ok(
        ("LRASPP on mobilenet_v3_large(width_mult=0.5, dilated)",
         lambda: L._lraspp_mobilenetv3(torchvision.models.mobilenet_v3_large(width_mult=0.5, dilated=True), 4)),
        ("lraspp_mobilenet_v3_large", lambda: torchvision.models.segmentation.lraspp_mobilenet_v3_large(
            weights=None, weights_backbone=None, num_classes=4)))
    return W["Image"](m, "out"), image(64), v


@zoo("deeplabv3", "segmentation", "torchvision")
def _():
    import torchvision
    from torchvision.models.segmentation import deeplabv3 as D
    W = _wrappers()
    m, v = first_ok(
        ("DeepLabV3 on mobilenet_v3_large(width_mult=0.5, dilated)",
         lambda: D._deeplabv3_mobilenetv3(torchvision.models.mobilenet_v3_large(width_mult=0.5, dilated=True), 4,
                                          False)),
        ("deeplabv3_mobilenet_v3_large", lambda: torchvision.models.segmentation.deeplabv3_mobilenet_v3_large(
            weights=None, weights_backbone=None, num_classes=4)))
    return W["Image"](m, "out"), image(64), v


def _unet_block():
    import math
    import torch
    from torch import nn
    import torch.nn.functional as F

    class Res(nn.Module):
        def __init__(self, cin, cout, temb):
            super().__init__()
            self.n1, self.c1 = nn.GroupNorm(8, cin), nn.Conv2d(cin, cout, 3, padding=1)
            self.t = nn.Linear(temb, cout)
            self.n2, self.c2 = nn.GroupNorm(8, cout), nn.Conv2d(cout, cout, 3, padding=1)
            self.skip = nn.Conv2d(cin, cout, 1) if cin != cout else nn.Identity()

        def forward(self, x, t):
            h = self.c1(F.silu(self.n1(x))) + self.t(F.silu(t))[:, :, None, None]
            return self.skip(x) + self.c2(F.silu(self.n2(h)))

    class Attn(nn.Module):
        def __init__(self, c, heads=4):
            super().__init__()
            self.heads, self.n = heads, nn.GroupNorm(8, c)
            self.qkv, self.out = nn.Linear(c, 3 * c), nn.Linear(c, c)

        def forward(self, x):
            b, c, h, w = x.shape
            s = self.n(x).flatten(2).transpose(1, 2)
            q, k, v = self.qkv(s).reshape(b, h * w, 3, self.heads, c // self.heads).permute(2, 0, 3, 1, 4)
            a = F.scaled_dot_product_attention(q, k, v).transpose(1, 2).reshape(b, h * w, c)
            return x + self.out(a).transpose(1, 2).reshape(b, c, h, w)

    class UNet(nn.Module):
        """A diffusion UNet at one down/up level: timestep embedding, ResNet blocks with
        GroupNorm and SiLU, self-attention in the middle, nearest upsampling, skip concat."""
        def __init__(self, c=32, temb=64):
            super().__init__()
            self.temb = temb
            self.tmlp = nn.Sequential(nn.Linear(temb, temb), nn.SiLU(), nn.Linear(temb, temb))
            self.inc = nn.Conv2d(4, c, 3, padding=1)
            self.down1, self.ds = Res(c, c, temb), nn.Conv2d(c, c, 3, stride=2, padding=1)
            self.mid1, self.attn, self.mid2 = Res(c, 2 * c, temb), Attn(2 * c), Res(2 * c, 2 * c, temb)
            self.up = nn.Conv2d(2 * c, c, 3, padding=1)
            self.up1 = Res(2 * c, c, temb)
            self.outn, self.outc = nn.GroupNorm(8, c), nn.Conv2d(c, 4, 3, padding=1)

        def forward(self, sample, timestep):
            half = self.temb // 2
            freqs = torch.exp(-math.log(10000.0) * torch.arange(half, dtype=torch.float32) / half)
            e = timestep[:, None] * freqs[None, :].to(timestep.dtype)
            t = self.tmlp(torch.cat([torch.sin(e), torch.cos(e)], dim=-1))
            h0 = self.down1(self.inc(sample), t)
            h = self.mid2(self.attn(self.mid1(self.ds(h0), t)), t)
            h = self.up(F.interpolate(h, scale_factor=2.0, mode="nearest"))
            h = self.up1(torch.cat([h, h0], dim=1), t)
            return self.outc(F.silu(self.outn(h)))
    return UNet()


@zoo("unet_block", "diffusion", "torch")
def _():
    import torch
    return (_unet_block(), (torch.randn(1, 4, 16, 16), torch.tensor([500.0])),
            "diffusion UNet level: time embedding, GroupNorm+SiLU ResBlocks, attention, nearest upsample")


@zoo("conv_autoencoder", "generative", "torch")
def _():
    import torch
    from torch import nn
    m = nn.Sequential(
        nn.Conv2d(3, 16, 3, stride=2, padding=1), nn.ReLU(), nn.Conv2d(16, 32, 3, stride=2, padding=1), nn.ReLU(),
        nn.ConvTranspose2d(32, 16, 4, stride=2, padding=1), nn.InstanceNorm2d(16, affine=True), nn.ReLU(),
        nn.ConvTranspose2d(16, 3, 3, stride=2, padding=1, output_padding=1), nn.Upsample(scale_factor=2,
                                                                                          mode="bilinear"),
        nn.Tanh())
    return m, image(32), "Conv + ConvTranspose2d + InstanceNorm + bilinear upsample"


# ---------------------------------------------------------------- low precision
@zoo("gpt2_f16", "lm", "transformers", "float16")
def _():
    return ZOO["gpt2"][2]()


@zoo("llama_bf16", "lm", "transformers", "bfloat16")
def _():
    return ZOO["llama"][2]()


@zoo("vit_f16", "vit", "torchvision", "float16")
def _():
    return _tv_vit(), image(32), "img 32, patch 8, 2 layers, dim 64"


@zoo("mobilenet_v2_bf16", "cnn", "torchvision", "bfloat16")
def _():
    return ZOO["mobilenet_v2"][2]()


@zoo("unet_block_f16", "diffusion", "torch", "float16")
def _():
    return ZOO["unet_block"][2]()


# Slowest first, so the pool's tail is short.
ORDER_FIRST = ["t5", "t5_eager", "t5_encoder", "beit_unfused", "whisper_encoder", "llama", "mistral", "qwen2", "gemma", "phi3", "gpt2", "bert",
               "llama_bf16", "gpt2_f16", "swin", "beit", "wav2vec2", "googlenet", "deeplabv3", "lraspp"]


# ---------------------------------------------------------------- census of one export
def census(path):
    import onnx
    from collections import Counter
    m = onnx.load(path, load_external_data=False)

    def key(n):
        return f"{n.domain}::{n.op_type}" if n.domain not in ("", "ai.onnx") else n.op_type

    ops, sub = Counter(), Counter()

    def walk(nodes, counter):
        for n in nodes:
            counter[key(n)] += 1
            for a in n.attribute:
                for g in ([a.g] if a.HasField("g") else []) + list(a.graphs):
                    walk(g.node, sub)
    walk(m.graph.node, ops)
    functions = []
    for f in m.functions:
        fc = Counter()
        walk(f.node, fc)
        functions.append({"domain": f.domain, "name": f.name, "ops": dict(sorted(fc.items()))})
    inits = {i.name for i in m.graph.initializer}
    external = sum(1 for i in m.graph.initializer if i.data_location == onnx.TensorProto.EXTERNAL)

    def vi(v):
        t = v.type.tensor_type
        return {"name": v.name, "elem_type": onnx.TensorProto.DataType.Name(t.elem_type),
                "shape": [d.dim_param if d.HasField("dim_param") else d.dim_value for d in t.shape.dim]}
    size = os.path.getsize(path)
    data = path + ".data"
    data_size = os.path.getsize(data) if os.path.exists(data) else 0
    return {
        "ir_version": m.ir_version,
        "opset_import": {(o.domain or "ai.onnx"): o.version for o in m.opset_import},
        "producer": f"{m.producer_name} {m.producer_version}",
        "nodes": len(m.graph.node),
        "ops": dict(sorted(ops.items())),
        "subgraph_ops": dict(sorted(sub.items())),
        "local_functions": functions,
        "initializers": len(m.graph.initializer),
        "external_initializers": external,
        "inputs": [vi(v) for v in m.graph.input if v.name not in inits],
        "outputs": [vi(v) for v in m.graph.output],
        "onnx_bytes": size,
        "data_bytes": data_size,
    }


def rel_err(got, want):
    import numpy as np
    got, want = np.asarray(got, np.float64), np.asarray(want, np.float64)
    if got.shape != want.shape:
        return f"shape {list(got.shape)} vs {list(want.shape)}"
    scale = float(np.max(np.abs(want))) if want.size else 0.0
    diff = float(np.max(np.abs(got - want))) if want.size else 0.0
    return diff / scale if scale > 0 else diff


def liven(model, args):
    """Random weights as constructors leave them give degenerate outputs: zero-initialized
    heads (torchvision's ViT) output zeros, and batch norms with fresh running statistics
    (mean 0, var 1) let activations shrink layer by layer (MobileNet's logits ~1e-8).
    Zeroed weight matrices get N(0, 0.02), and every batch norm takes the statistics of a
    random batch of 4 inputs, as training would. Returns what it did."""
    import torch
    from torch import nn
    done = []
    with torch.no_grad():
        for n, p in model.named_parameters():
            if p.dim() >= 2 and p.numel() and float(p.abs().max()) == 0.0:
                p.normal_(0.0, 0.02)
                done.append(f"{n} re-drawn")
    bns = [m for m in model.modules() if isinstance(m, nn.modules.batchnorm._BatchNorm)]
    if bns and all(a.is_floating_point() for a in args):
        saved = [m.momentum for m in bns]
        for m in bns:
            m.reset_running_stats()
            m.momentum = None  # cumulative: one batch sets the statistics
        model.train()
        try:
            with torch.no_grad():
                model(*[torch.randn(4, *a.shape[1:]) for a in args])
            done.append(f"{len(bns)} batch norms calibrated")
        except Exception as e:  # keep the constructor's statistics
            for m in bns:
                m.reset_running_stats()
            done.append(f"batch norms not calibrated: {type(e).__name__}: {str(e)[:200]}")
        model.eval()
        for m, mo in zip(bns, saved):
            m.momentum = mo
    return done


# ---------------------------------------------------------------- one model (in a worker)
def flatten(o):
    import torch
    if isinstance(o, torch.Tensor):
        return [o]
    if isinstance(o, (tuple, list)):
        return [t for x in o for t in flatten(x)]
    raise TypeError(f"output of type {type(o).__name__}")


def to_numpy(t):
    import torch
    t = t.detach().cpu()
    if t.dtype == torch.bfloat16:
        t = t.float()  # exact: every bf16 value is an f32 value
    return t.numpy()


def build_one(job):
    name, root = job
    family, source, builder, dtype = ZOO[name]
    d = os.path.join(root, name)
    os.makedirs(d, exist_ok=True)
    meta = {"name": name, "family": family, "source": source, "dtype": dtype, "ok": False}
    log = open(os.path.join(d, "export.log"), "w")
    saved = os.dup(1), os.dup(2)
    os.dup2(log.fileno(), 1)
    os.dup2(log.fileno(), 2)
    stage = "import"
    t0 = time.time()
    try:
        import numpy as np
        import torch
        torch.set_num_threads(1)
        torch.manual_seed(0)
        meta["torch"] = torch.__version__
        stage = "build"
        model, args, variant = builder()
        meta["config"] = variant
        model.eval()
        meta["liven"] = liven(model, args)
        low = {"float16": torch.float16, "bfloat16": torch.bfloat16}.get(dtype)
        f32_model, f32_args = None, None
        if low is not None:
            import copy
            f32_model, f32_args = copy.deepcopy(model), args
            model = model.to(low)
            args = tuple(a.to(low) if a.is_floating_point() else a for a in args)
        meta["parameters"] = sum(p.numel() for p in model.parameters())
        stage = "run"
        with torch.no_grad():
            try:
                outs = flatten(model(*args))
                meta["reference_device"] = "cpu"
            except Exception:
                if low is None or not torch.cuda.is_available():
                    raise
                gm = model.to("cuda")
                outs = flatten(gm(*[a.to("cuda") for a in args]))
                model = gm.to("cpu")
                meta["reference_device"] = "cuda"
            if f32_model is not None:
                f32_outs = flatten(f32_model(*f32_args))
        stage = "export"
        path = os.path.join(d, "model.onnx")
        te = time.time()
        torch.onnx.export(model, tuple(args), path)
        meta["export_seconds"] = round(time.time() - te, 2)
        stage = "census"
        c = census(path)
        meta.update(c)
        names = [i["name"] for i in c["inputs"]]
        meta["input_files"] = []
        for k, a in enumerate(args):
            f = f"input_{k}.npy"
            np.save(os.path.join(d, f), to_numpy(a))
            meta["input_files"].append({"file": f, "name": names[k] if k < len(names) else None,
                                        "dtype": str(a.dtype).replace("torch.", ""), "shape": list(a.shape)})
        if len(names) != len(args):
            meta["input_note"] = f"the export has {len(names)} inputs, PyTorch was called with {len(args)}"
        meta["output_files"] = []
        for k, o in enumerate(outs):
            f = f"output_{k}.npy"
            np.save(os.path.join(d, f), to_numpy(o))
            entry = {"file": f, "dtype": str(o.dtype).replace("torch.", ""), "shape": list(o.shape)}
            if f32_model is not None:
                np.save(os.path.join(d, f"output_{k}.f32.npy"), to_numpy(f32_outs[k]))
                entry["f32_file"] = f"output_{k}.f32.npy"
                entry["rel_err_vs_f32"] = rel_err(to_numpy(o), to_numpy(f32_outs[k]))
            meta["output_files"].append(entry)
        meta["ok"] = True
        stage = "onnx checker"
        try:  # full_check: strict shape and type inference over the whole graph
            import onnx
            onnx.checker.check_model(path, full_check=True)
            meta["onnx_checker"] = "ok"
        except Exception as e:
            meta["onnx_checker"] = f"{type(e).__name__}: {str(e)[:400]}"
        stage = "onnxruntime"
        try:
            import onnxruntime as ort
            if dtype == "bfloat16":
                meta["ort"] = "skipped: numpy has no bfloat16"
            else:
                s = ort.InferenceSession(path, providers=["CPUExecutionProvider"])
                feeds = {i.name: to_numpy(a) for i, a in zip(s.get_inputs(), args)}
                got = s.run(None, feeds)
                meta["ort_rel_err"] = [rel_err(g, to_numpy(o)) for g, o in zip(got, outs)]
        except Exception as e:
            meta["ort"] = f"{type(e).__name__}: {str(e)[:300]}"
    except BaseException as e:
        meta["stage"] = stage
        meta["error"] = f"{type(e).__name__}: {str(e)[:600]}"
        meta["traceback"] = traceback.format_exc()[-2000:]
    finally:
        meta["seconds"] = round(time.time() - t0, 2)
        sys.stdout.flush()
        sys.stderr.flush()
        os.dup2(saved[0], 1)
        os.dup2(saved[1], 2)
        os.close(saved[0])
        os.close(saved[1])
        log.close()
    with open(os.path.join(d, "meta.json"), "w") as f:
        json.dump(meta, f, indent=1, sort_keys=True)
    return meta


# ---------------------------------------------------------------- the whole zoo
def table(metas):
    rows = ["| model | family | dtype | IR | opsets | nodes | functions | MB | ONNX checker | ORT rel err | status |",
            "| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |"]
    for m in metas:
        if m.get("ok"):
            ops = ", ".join(f"{k}:{v}" for k, v in m["opset_import"].items())
            mb = (m["onnx_bytes"] + m["data_bytes"]) / 1e6
            ort = m.get("ort_rel_err", m.get("ort", ""))
            if isinstance(ort, list):
                ort = " ".join(f"{x:.1e}" if isinstance(x, float) else str(x) for x in ort)
            rows.append(f"| {m['name']} | {m['family']} | {m['dtype']} | {m['ir_version']} | {ops} | {m['nodes']} "
                        f"| {len(m['local_functions'])} | {mb:.2f} | {m.get('onnx_checker', '')[:80]} | {ort} | exported |")
        else:
            rows.append(f"| {m['name']} | {m['family']} | {m['dtype']} | | | | | | | | {m.get('stage', '?')}: "
                        f"{m.get('error', 'not finished')[:120].replace('|', '/')} |")
    return "\n".join(rows) + "\n"


def pack(root, metas, out, budget_files, tar_bytes, total_bytes):
    """Smallest models first into tar.gz files of at most tar_bytes (uncompressed) each."""
    def model_bytes(name):
        d = os.path.join(root, name)
        return sum(os.path.getsize(os.path.join(d, f)) for f in os.listdir(d))
    ok = sorted((model_bytes(m["name"]), m["name"]) for m in metas if m.get("ok"))
    tars, cur, cur_bytes, total = [], [], 0, 0
    packed = set()
    for size, name in ok:
        if size > tar_bytes or total + size > total_bytes:
            continue
        if cur_bytes + size > tar_bytes:
            if len(tars) + 1 >= budget_files:
                break
            tars.append(cur)
            cur, cur_bytes = [], 0
        cur.append(name)
        cur_bytes += size
        total += size
    if cur:
        tars.append(cur)
    written = []
    for k, names in enumerate(tars):
        p = os.path.join(out, f"zoo_{k + 1}.tar.gz")
        with tarfile.open(p, "w:gz", compresslevel=6) as t:
            for n in names:
                t.add(os.path.join(root, n), arcname=n)
                packed.add(n)
        written.append((p, os.path.getsize(p), names))
    return written, packed


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("zoo", nargs="?", default="zoo")
    ap.add_argument("--out", help="write census.json, census.md, build.log and zoo_N.tar.gz here")
    ap.add_argument("--only", help="comma-separated model names")
    ap.add_argument("--jobs", type=int, default=max(1, min(12, (os.cpu_count() or 2) - 2)))
    ap.add_argument("--deadline", type=float, default=600.0, help="seconds before unfinished models are dropped")
    ap.add_argument("--tar-mib", type=float, default=14.5, help="uncompressed MiB per tar")
    ap.add_argument("--total-mib", type=float, default=52.0, help="uncompressed MiB in all tars")
    ap.add_argument("--list", action="store_true")
    a = ap.parse_args()
    if a.list:
        for n, (fam, src, _, dt) in ZOO.items():
            print(f"{n}\t{fam}\t{src}\t{dt}")
        return 0
    names = a.only.split(",") if a.only else list(ZOO)
    unknown = [n for n in names if n not in ZOO]
    if unknown:
        print(f"unknown model(s): {', '.join(unknown)}; --list shows them", file=sys.stderr)
        return 2
    names.sort(key=lambda n: ORDER_FIRST.index(n) if n in ORDER_FIRST else len(ORDER_FIRST))
    os.makedirs(a.zoo, exist_ok=True)
    root = os.path.abspath(a.zoo)
    start = time.time()
    metas = {}
    pool = mp.get_context("fork").Pool(a.jobs, maxtasksperchild=4)
    it = pool.imap_unordered(build_one, [(n, root) for n in names])
    try:
        for _ in names:
            left = a.deadline - (time.time() - start)
            if left <= 0:
                break
            m = it.next(timeout=left)
            metas[m["name"]] = m
            state = "ok" if m.get("ok") else f"FAILED at {m.get('stage')}: {m.get('error', '')[:200]}"
            print(f"[{time.time() - start:6.1f}s] {m['name']}: {state}", flush=True)
    except mp.TimeoutError:
        pass
    pool.terminate()
    for n in names:
        if n not in metas:
            family, source, _, dtype = ZOO[n]
            metas[n] = {"name": n, "family": family, "source": source, "dtype": dtype, "ok": False,
                        "stage": "deadline", "error": f"not finished within {a.deadline:.0f} s"}
    ordered = [metas[n] for n in ZOO if n in metas]
    print(f"{sum(m.get('ok', False) for m in ordered)} of {len(ordered)} exported in {time.time() - start:.0f} s")
    if a.out:
        os.makedirs(a.out, exist_ok=True)
        written, packed = pack(root, ordered, a.out, budget_files=4, tar_bytes=int(a.tar_mib * 2**20),
                               total_bytes=int(a.total_mib * 2**20))
        for m in ordered:
            m["returned"] = m["name"] in packed
        with open(os.path.join(a.out, "census.json"), "w") as f:
            json.dump([{k: v for k, v in m.items() if k != "traceback"} for m in ordered], f, indent=1,
                      sort_keys=True)
        with open(os.path.join(a.out, "census.md"), "w") as f:
            f.write(table(ordered))
        with open(os.path.join(a.out, "build.log"), "w") as f:
            for m in ordered:
                if not m.get("ok"):
                    f.write(f"== {m['name']} ({m['source']}): {m.get('stage')}: {m.get('error')}\n")
                    f.write(m.get("traceback", "") + "\n")
                    lp = os.path.join(root, m["name"], "export.log")
                    if os.path.exists(lp):
                        f.write("-- export.log tail:\n" + open(lp, errors="replace").read()[-3000:] + "\n")
        for p, size, ns in written:
            print(f"{os.path.basename(p)}: {size / 2**20:.1f} MiB, {len(ns)} models")
        print("not returned:", " ".join(m["name"] for m in ordered if m.get("ok") and not m["returned"]))
    print(table(ordered))
    return 0


if __name__ == "__main__":
    sys.exit(main())
