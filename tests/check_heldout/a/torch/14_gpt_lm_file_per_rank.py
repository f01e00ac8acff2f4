"""Small GPT language model on pre-tokenised shards, one shard file per Horovod rank.

Pre-processing (tokenise.py) wrote <data>/train-000.pt ... train-NNN.pt (one per rank, equal size)
and <data>/valid.pt. Every rank evaluates the whole validation file.
"""
import argparse
import math
import os
import time
from dataclasses import dataclass

import torch
import torch.nn as nn
import torch.nn.functional as F
import horovod.torch as hvd


@dataclass
class GPTConfig:
    vocab: int = 50257
    ctx: int = 512
    d: int = 512
    heads: int = 8
    layers: int = 8
    dropout: float = 0.1


class Block(nn.Module):
    def __init__(self, c):
        super().__init__()
        self.ln1, self.ln2 = nn.LayerNorm(c.d), nn.LayerNorm(c.d)
        self.attn = nn.MultiheadAttention(c.d, c.heads, dropout=c.dropout, batch_first=True)
        self.mlp = nn.Sequential(nn.Linear(c.d, 4 * c.d), nn.GELU(), nn.Linear(4 * c.d, c.d), nn.Dropout(c.dropout))
        self.register_buffer("mask", torch.triu(torch.ones(c.ctx, c.ctx, dtype=torch.bool), 1))

    def forward(self, x):
        t = x.size(1)
        h = self.ln1(x)
        x = x + self.attn(h, h, h, attn_mask=self.mask[:t, :t], need_weights=False)[0]
        return x + self.mlp(self.ln2(x))


class GPT(nn.Module):
    def __init__(self, c):
        super().__init__()
        self.tok = nn.Embedding(c.vocab, c.d)
        self.pos = nn.Parameter(torch.zeros(1, c.ctx, c.d))
        self.blocks = nn.Sequential(*[Block(c) for _ in range(c.layers)])
        self.ln = nn.LayerNorm(c.d)
        self.head = nn.Linear(c.d, c.vocab, bias=False)
        self.head.weight = self.tok.weight

    def forward(self, idx):
        x = self.tok(idx) + self.pos[:, :idx.size(1)]
        return self.head(self.ln(self.blocks(x)))


def batches(tokens, ctx, bs, gen):
    n = (tokens.numel() - 1) // ctx
    order = torch.randperm(n, generator=gen)
    for i in range(0, n - bs + 1, bs):
        starts = order[i:i + bs] * ctx
        x = torch.stack([tokens[s:s + ctx] for s in starts])
        y = torch.stack([tokens[s + 1:s + 1 + ctx] for s in starts])
        yield x, y


@torch.no_grad()
def evaluate(model, tokens, ctx, device, max_batches=200):
    model.eval()
    losses = []
    for i, (x, y) in enumerate(batches(tokens, ctx, 16, torch.Generator().manual_seed(0))):
        if i >= max_batches:
            break
        x, y = x.to(device), y.to(device)
        losses.append(F.cross_entropy(model(x).flatten(0, 1), y.flatten()).item())
    model.train()
    return sum(losses) / len(losses)


p = argparse.ArgumentParser()
p.add_argument("--data", required=True)
p.add_argument("--bs", type=int, default=16)
p.add_argument("--accum", type=int, default=4)
p.add_argument("--lr", type=float, default=3e-4)
p.add_argument("--epochs", type=int, default=3)
p.add_argument("--eval_interval", type=int, default=500)
p.add_argument("--save_interval", type=int, default=2000)
p.add_argument("--ckpt", default="gpt_small.pt")
args = p.parse_args()

hvd.init()
torch.cuda.set_device(hvd.local_rank())
device = "cuda"
master = hvd.rank() == 0

train_tokens = torch.load(os.path.join(args.data, f"train-{hvd.rank():03d}.pt"))
valid_tokens = torch.load(os.path.join(args.data, "valid.pt"))
cfg = GPTConfig()
model = GPT(cfg).to(device)

decay = [p_ for n, p_ in model.named_parameters() if p_.dim() >= 2]
no_decay = [p_ for n, p_ in model.named_parameters() if p_.dim() < 2]
opt = torch.optim.AdamW([{"params": decay, "weight_decay": 0.1}, {"params": no_decay, "weight_decay": 0.0}],
                        lr=args.lr * hvd.size(), betas=(0.9, 0.95))
opt = hvd.DistributedOptimizer(opt, named_parameters=model.named_parameters(),
                               backward_passes_per_step=args.accum)

step = 0
if os.path.exists(args.ckpt) and master:
    state = torch.load(args.ckpt, map_location="cpu")
    model.load_state_dict(state["model"])
    opt.load_state_dict(state["opt"])
    step = state["step"]
step = hvd.broadcast_object(step, root_rank=0, name="resume_step")
hvd.broadcast_parameters(model.state_dict(), root_rank=0)
hvd.broadcast_optimizer_state(opt, root_rank=0)

# every rank must run the same number of optimizer steps: take the smallest shard's count
my_steps = ((train_tokens.numel() - 1) // cfg.ctx) // (args.bs * args.accum)
steps_per_epoch = int(hvd.allreduce(torch.tensor(my_steps), op=hvd.Min, name="steps").item())
total = steps_per_epoch * args.epochs
sched = torch.optim.lr_scheduler.LambdaLR(opt, lambda s: min(1.0, (s + 1) / 1000) * 0.5 * (1 + math.cos(math.pi * min(s, total) / total)))
for _ in range(step):
    sched.step()

gen = torch.Generator().manual_seed(1234 + hvd.rank())
t0 = time.time()
for epoch in range(args.epochs):
    it = batches(train_tokens, cfg.ctx, args.bs, gen)
    for _ in range(steps_per_epoch):
        opt.zero_grad(set_to_none=True)
        for micro in range(args.accum):
            x, y = next(it)
            x, y = x.to(device), y.to(device)
            with torch.autocast("cuda", dtype=torch.bfloat16):
                loss = F.cross_entropy(model(x).flatten(0, 1), y.flatten()) / args.accum
            loss.backward()
        opt.synchronize()
        nn.utils.clip_grad_norm_(model.parameters(), 1.0)
        with opt.skip_synchronize():
            opt.step()
        sched.step()
        step += 1

        if step % args.eval_interval == 0:
            vl = evaluate(model, valid_tokens, cfg.ctx, device)
            vl = hvd.allreduce(torch.tensor(vl), name="val_loss").item()
            if master:
                print(f"step {step} val_loss {vl:.3f} ppl {math.exp(vl):.1f} "
                      f"lr {sched.get_last_lr()[0]:.2e} {time.time() - t0:.0f}s", flush=True)
        if master and step % args.save_interval == 0:
            torch.save({"model": model.state_dict(), "opt": opt.state_dict(), "step": step}, args.ckpt)

if master:
    torch.save({"model": model.state_dict(), "opt": opt.state_dict(), "step": step}, args.ckpt)
