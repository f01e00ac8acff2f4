#!/usr/bin/env python3
import argparse
import math

import horovod.torch as hvd
import torch
import torch.nn as nn
import torch.nn.functional as F
import yaml
from torch.utils.data import DataLoader
from torch.utils.data.distributed import DistributedSampler

from tinystories.ckpt import CheckpointManager
from tinystories.data import ShardIndexDataset
from tinystories.env import init_distributed
from tinystories.optim import build_optimizer, cosine_with_warmup


class StoryLM(nn.Module):
    def __init__(self, vocab=8192, d=288, n_layers=6, n_heads=6, seq_len=256):
        super().__init__()
        self.tok = nn.Embedding(vocab, d)
        self.pos = nn.Embedding(seq_len, d)
        self.layers = nn.TransformerEncoder(
            nn.TransformerEncoderLayer(d, n_heads, 4 * d, 0.0, batch_first=True, norm_first=True), n_layers)
        self.out = nn.Linear(d, vocab, bias=False)

    def forward(self, x):
        T = x.size(1)
        mask = nn.Transformer.generate_square_subsequent_mask(T, device=x.device)
        h = self.tok(x) + self.pos(torch.arange(T, device=x.device))
        return self.out(self.layers(h, mask=mask, is_causal=True))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--config", default="conf/small.yaml")
    ap.add_argument("--ckpt-dir", default="ckpt")
    ap.add_argument("--override", nargs="*", default=[], metavar="KEY=VAL")
    args = ap.parse_args()
    cfg = yaml.safe_load(open(args.config))
    for kv in args.override:
        k, v = kv.split("=", 1)
        cfg[k] = yaml.safe_load(v)

    device = init_distributed(seed=cfg.get("seed", 0))
    train_ds = ShardIndexDataset(cfg["shard_index"], "train", cfg["seq_len"])
    val_ds = ShardIndexDataset(cfg["shard_index"], "val", cfg["seq_len"])
    train_sampler = DistributedSampler(train_ds, hvd.size(), hvd.rank(), shuffle=True, seed=17)
    val_sampler = DistributedSampler(val_ds, hvd.size(), hvd.rank(), shuffle=False)
    train_dl = DataLoader(train_ds, cfg["batch_size"], sampler=train_sampler, num_workers=2, drop_last=True)
    val_dl = DataLoader(val_ds, cfg["batch_size"], sampler=val_sampler)

    model = StoryLM(seq_len=cfg["seq_len"]).to(device)
    optimizer = build_optimizer(model, cfg, lr=cfg["lr"] * hvd.size())
    scheduler = cosine_with_warmup(optimizer, cfg["warmup_steps"], cfg["max_steps"])
    ckpt = CheckpointManager(args.ckpt_dir, cfg["keep_last"])
    step = ckpt.restore(model=model, optimizer=optimizer, scheduler=scheduler)
    hvd.broadcast_parameters(model.state_dict(), root_rank=0)
    hvd.broadcast_optimizer_state(optimizer, root_rank=0)

    def evaluate():
        model.eval()
        losses = []
        with torch.no_grad():
            for x, y in val_dl:
                logits = model(x.to(device))
                losses.append(F.cross_entropy(logits.flatten(0, 1), y.to(device).flatten()).item())
        model.train()
        mean = hvd.allreduce(torch.tensor(sum(losses) / len(losses)), name="val_loss").item()
        return mean, math.exp(mean)

    accum, epoch = cfg["grad_accum"], 0
    while step < cfg["max_steps"]:
        train_sampler.set_epoch(epoch)
        for i, (x, y) in enumerate(train_dl):
            logits = model(x.to(device))
            loss = F.cross_entropy(logits.flatten(0, 1), y.to(device).flatten()) / accum
            loss.backward()
            if (i + 1) % accum:
                continue
            nn.utils.clip_grad_norm_(model.parameters(), 1.0)
            optimizer.step()
            optimizer.zero_grad()
            scheduler.step()
            step += 1
            if step % 100 == 0 and hvd.rank() == 0:
                print(f"[{cfg['run_name']}] step {step} loss {loss.item() * accum:.4f}", flush=True)
            if step % cfg["eval_every"] == 0:
                vl, ppl = evaluate()
                if hvd.rank() == 0:
                    print(f"[{cfg['run_name']}] step {step} val_loss {vl:.4f} ppl {ppl:.2f}", flush=True)
            if step % cfg["ckpt_every"] == 0:
                ckpt.save(step, model=model, optimizer=optimizer, scheduler=scheduler)
            if step >= cfg["max_steps"]:
                break
        epoch += 1


if __name__ == "__main__":
    main()
