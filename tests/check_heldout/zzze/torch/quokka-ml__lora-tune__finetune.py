"""LoRA fine-tuning of a small causal LM on instruction data, data-parallel with Horovod.

The base checkpoint is frozen; only the low-rank adapters are trained and saved.
"""
import argparse
import dataclasses
import json
import math
import os
from dataclasses import dataclass, field

import horovod.torch as hvd
import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.data import DataLoader, Subset, TensorDataset


@dataclass
class FinetuneArgs:
    base_ckpt: str = "checkpoints/base-60m.pt"
    train_tokens: str = "data/sft_train.npy"   # int32 [n, seq_len + 1], already packed
    eval_tokens: str = "data/sft_eval.npy"
    out_dir: str = "adapters/run0"
    vocab: int = 32000
    dim: int = 512
    layers: int = 8
    heads: int = 8
    lora_rank: int = 16
    lora_alpha: float = 32.0
    micro_batch: int = 4
    accum: int = 8
    base_lr: float = 1e-4        # tuned on one GPU with micro_batch * accum sequences per step
    warmup_steps: int = 100
    epochs: int = 2
    save_every: int = 200
    target_modules: list = field(default_factory=lambda: ["out_proj", "linear1", "linear2"])


def parse_args():
    p = argparse.ArgumentParser()
    for f in dataclasses.fields(FinetuneArgs):
        if f.name == "target_modules":
            continue
        p.add_argument("--" + f.name, type=f.type if isinstance(f.type, type) else eval(f.type),
                       default=f.default)
    p.add_argument("--config", help="json file with the same keys")
    ns = vars(p.parse_args())
    cfg_file = ns.pop("config")
    args = FinetuneArgs(**ns)
    if cfg_file:
        for k, v in json.load(open(cfg_file)).items():
            setattr(args, k, v)
    return args


class LoRALinear(nn.Module):
    def __init__(self, base: nn.Linear, r, alpha):
        super().__init__()
        self.base = base
        self.A = nn.Parameter(torch.randn(r, base.in_features) * 0.01)
        self.B = nn.Parameter(torch.zeros(base.out_features, r))
        self.scale = alpha / r

    @property
    def weight(self):  # nn.TransformerEncoderLayer reads .weight / .bias of its linears
        return self.base.weight

    @property
    def bias(self):
        return self.base.bias

    def forward(self, x):
        return self.base(x) + (x @ self.A.t() @ self.B.t()) * self.scale


class BaseLM(nn.Module):
    def __init__(self, a):
        super().__init__()
        self.emb = nn.Embedding(a.vocab, a.dim)
        layer = nn.TransformerEncoderLayer(a.dim, a.heads, 4 * a.dim, activation=F.silu, batch_first=True)
        self.stack = nn.TransformerEncoder(layer, a.layers, enable_nested_tensor=False)
        self.head = nn.Linear(a.dim, a.vocab)

    def forward(self, x):
        T = x.size(1)
        m = nn.Transformer.generate_square_subsequent_mask(T, device=x.device)
        return self.head(self.stack(self.emb(x), mask=m, is_causal=True))


def add_lora(model, a):
    for p in model.parameters():
        p.requires_grad_(False)
    for layer in model.stack.layers:
        for name in ("linear1", "linear2"):
            if name in a.target_modules:
                setattr(layer, name, LoRALinear(getattr(layer, name), a.lora_rank, a.lora_alpha))
    return model


def lora_state(model):
    return {k: v for k, v in model.state_dict().items() if ".A" in k or ".B" in k}


def lm_loss(model, batch, device):
    seq = batch[0].long().to(device)
    logits = model(seq[:, :-1])
    return F.cross_entropy(logits.reshape(-1, logits.size(-1)), seq[:, 1:].reshape(-1))


def main(a: FinetuneArgs):
    hvd.init()
    device = torch.device("cpu")
    if torch.cuda.is_available():
        torch.cuda.set_device(hvd.local_rank())
        device = torch.device("cuda", torch.cuda.current_device())

    train = TensorDataset(torch.from_numpy(np.load(a.train_tokens)))
    evals = TensorDataset(torch.from_numpy(np.load(a.eval_tokens)))
    per_rank = len(train) // hvd.size()
    mine = Subset(train, list(range(hvd.rank() * per_rank, (hvd.rank() + 1) * per_rank)))
    g = torch.Generator().manual_seed(1234 + hvd.rank())
    train_dl = DataLoader(mine, batch_size=a.micro_batch, shuffle=True, generator=g, drop_last=True)
    eval_dl = DataLoader(evals, batch_size=a.micro_batch)

    model = BaseLM(a)
    model.load_state_dict(torch.load(a.base_ckpt, map_location="cpu"))
    model = add_lora(model, a).to(device)
    trainable = [(n, p) for n, p in model.named_parameters() if p.requires_grad]

    steps_per_epoch = len(train_dl) // a.accum
    total = steps_per_epoch * a.epochs
    peak = a.base_lr * hvd.size()
    opt = torch.optim.AdamW([p for _, p in trainable], lr=peak, weight_decay=0.0)
    opt = hvd.DistributedOptimizer(opt, named_parameters=trainable, backward_passes_per_step=a.accum)
    sched = torch.optim.lr_scheduler.LambdaLR(
        opt, lambda s: min(1.0, (s + 1) / a.warmup_steps)
        * 0.5 * (1 + math.cos(math.pi * min(1.0, s / max(1, total)))))

    start = 0
    resume = os.path.join(a.out_dir, "adapter_last.pt")
    if hvd.rank() == 0 and os.path.exists(resume):
        blob = torch.load(resume, map_location="cpu")
        model.load_state_dict(blob["lora"], strict=False)
        opt.load_state_dict(blob["opt"])
        start = blob["step"]
    hvd.broadcast_parameters(model.state_dict(), root_rank=0)
    hvd.broadcast_optimizer_state(opt, root_rank=0)
    start = hvd.broadcast_object(start, root_rank=0)
    for _ in range(start):
        sched.step()

    step = start
    for epoch in range(a.epochs):
        it = iter(train_dl)
        for _ in range(steps_per_epoch):
            if epoch * steps_per_epoch + _ < start:
                for _m in range(a.accum):
                    next(it)
                continue
            for _m in range(a.accum):
                loss = lm_loss(model, next(it), device) / a.accum
                loss.backward()
            opt.step()
            opt.zero_grad()
            sched.step()
            step += 1
            if step % a.save_every == 0 and hvd.rank() == 0:
                os.makedirs(a.out_dir, exist_ok=True)
                torch.save({"lora": lora_state(model), "opt": opt.state_dict(), "step": step}, resume)

        # the eval split is small: every rank scores all of it, rank 0 reports
        model.eval()
        with torch.no_grad():
            tot = sum(lm_loss(model, b, device).item() for b in eval_dl) / len(eval_dl)
        model.train()
        if hvd.rank() == 0:
            print(f"epoch {epoch}: eval loss {tot:.4f} ppl {math.exp(tot):.2f}", flush=True)

    if hvd.rank() == 0:
        os.makedirs(a.out_dir, exist_ok=True)
        torch.save(lora_state(model), os.path.join(a.out_dir, "adapter_final.pt"))


if __name__ == "__main__":
    main(parse_args())
