"""packed-lm training entry point. Launched by scripts/launch.sh through horovodrun."""
import argparse
import math
import os

import horovod.torch as hvd
import torch
import torch.nn.functional as F
import yaml
from torch.utils.data import DataLoader

from packedlm import dist
from packedlm.lr import WarmupCosine
from packedlm.model import CausalLM
from packedlm.packing import PackedDataset, load_documents, shard_documents

DEFAULTS = dict(train="data/train.npz", valid="data/valid.npz", vocab=16384, eos_id=0, ctx=512,
                micro_batch=8, accum_steps=4, lr=2e-4, warmup=200, total_steps=10000,
                eval_interval=250, ckpt_interval=1000, ckpt="ckpt/packed-lm.pt", seed=0)


def parse():
    ap = argparse.ArgumentParser()
    ap.add_argument("-c", "--config")
    for k, v in DEFAULTS.items():
        ap.add_argument(f"--{k.replace('_', '-')}", type=type(v), default=None)
    ns = ap.parse_args()
    cfg = dict(DEFAULTS)
    if ns.config:
        cfg.update(yaml.safe_load(open(ns.config)))
    cfg.update({k: v for k, v in vars(ns).items() if v is not None and k != "config"})
    return argparse.Namespace(**cfg)


@torch.no_grad()
def perplexity(model, loader, device):
    model.eval()
    stats = torch.zeros(2, dtype=torch.float64)
    for x, y in loader:
        logits = model(x.to(device))
        stats[0] += F.cross_entropy(logits.flatten(0, 1), y.to(device).flatten(), reduction="sum").item()
        stats[1] += y.numel()
    model.train()
    stats = dist.all_sum(stats, "ppl_stats")
    return math.exp(stats[0] / stats[1])


def run(cfg):
    device = dist.setup()
    torch.manual_seed(cfg.seed)

    train_docs = shard_documents(load_documents(cfg.train), cfg.seed)
    valid_docs = shard_documents(load_documents(cfg.valid), cfg.seed)
    train_ds = PackedDataset(train_docs, cfg.ctx, cfg.eos_id)
    valid_ds = PackedDataset(valid_docs, cfg.ctx, cfg.eos_id)
    train_dl = DataLoader(train_ds, batch_size=cfg.micro_batch, shuffle=True, drop_last=True)
    valid_dl = DataLoader(valid_ds, batch_size=cfg.micro_batch)

    model = CausalLM(cfg.vocab, ctx=cfg.ctx).to(device)
    sched = WarmupCosine(cfg.lr * hvd.size(), cfg.warmup, cfg.total_steps)
    opt = torch.optim.AdamW(model.parameters(), lr=sched(0), weight_decay=0.1)
    opt = hvd.DistributedOptimizer(opt, named_parameters=model.named_parameters(),
                                   backward_passes_per_step=cfg.accum_steps)

    step = 0
    if os.path.exists(cfg.ckpt):
        state = torch.load(cfg.ckpt, map_location="cpu")
        model.load_state_dict(state["model"])
        opt.load_state_dict(state["opt"])
        step = state["step"]
    hvd.broadcast_parameters(model.state_dict(), root_rank=0)
    hvd.broadcast_optimizer_state(opt, root_rank=0)

    n_micro = 0
    while step < cfg.total_steps:
        for x, y in train_dl:
            logits = model(x.to(device))
            loss = F.cross_entropy(logits.flatten(0, 1), y.to(device).flatten())
            (loss / cfg.accum_steps).backward()
            n_micro += 1
            if n_micro % cfg.accum_steps:
                continue
            lr = sched.apply(opt, step)
            opt.step()
            opt.zero_grad()
            step += 1
            if step % 50 == 0:
                dist.print0(f"step {step} loss {loss.item():.3f} lr {lr:.2e}")
            if step % cfg.eval_interval == 0:
                dist.print0(f"step {step} valid ppl {perplexity(model, valid_dl, device):.2f}")
            if step % cfg.ckpt_interval == 0 and dist.is_root():
                os.makedirs(os.path.dirname(cfg.ckpt) or ".", exist_ok=True)
                torch.save({"model": model.state_dict(), "opt": opt.state_dict(), "step": step}, cfg.ckpt)
            if step >= cfg.total_steps:
                break


if __name__ == "__main__":
    run(parse())
