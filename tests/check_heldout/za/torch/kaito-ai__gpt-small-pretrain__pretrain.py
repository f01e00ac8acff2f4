"""Pre-train a small GPT on the tokenized corpus (uint16 token ids in train.bin / val.bin).

horovodrun -np 16 -H node1:8,node2:8 python pretrain.py --data /fsx/corpus/ja-web-2024 --accum 4
"""
import argparse
import math
import os
import time

import horovod.torch as hvd
import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F

parser = argparse.ArgumentParser()
parser.add_argument("--data", default="/fsx/corpus/ja-web-2024")
parser.add_argument("--out", default="ckpt")
parser.add_argument("--block", type=int, default=512)
parser.add_argument("--batch", type=int, default=16, help="micro-batch per GPU")
parser.add_argument("--accum", type=int, default=4, help="micro-batches per optimizer step")
parser.add_argument("--layers", type=int, default=8)
parser.add_argument("--dim", type=int, default=512)
parser.add_argument("--heads", type=int, default=8)
parser.add_argument("--vocab", type=int, default=32000)
parser.add_argument("--lr", type=float, default=3e-4)
parser.add_argument("--min-lr", type=float, default=3e-5)
parser.add_argument("--warmup", type=int, default=1000)
parser.add_argument("--steps", type=int, default=50000)
parser.add_argument("--eval-every", type=int, default=1000)
parser.add_argument("--eval-iters", type=int, default=50)
parser.add_argument("--grad-clip", type=float, default=1.0)
args = parser.parse_args()

hvd.init()
torch.manual_seed(1337)
if torch.cuda.is_available():
    torch.cuda.set_device(hvd.local_rank())
device = "cuda" if torch.cuda.is_available() else "cpu"
master = hvd.rank() == 0


def rank_tokens(split):
    data = np.memmap(os.path.join(args.data, f"{split}.bin"), dtype=np.uint16, mode="r")
    chunk = len(data) // hvd.size()
    return data[hvd.rank() * chunk:(hvd.rank() + 1) * chunk]


train_data, val_data = rank_tokens("train"), rank_tokens("val")


def get_batch(data):
    ix = torch.randint(len(data) - args.block - 1, (args.batch,))
    x = torch.stack([torch.from_numpy(data[i:i + args.block].astype(np.int64)) for i in ix])
    y = torch.stack([torch.from_numpy(data[i + 1:i + 1 + args.block].astype(np.int64)) for i in ix])
    return x.to(device), y.to(device)


class Block(nn.Module):
    def __init__(self, dim, heads):
        super().__init__()
        self.ln1, self.ln2 = nn.LayerNorm(dim), nn.LayerNorm(dim)
        self.attn = nn.MultiheadAttention(dim, heads, batch_first=True)
        self.mlp = nn.Sequential(nn.Linear(dim, 4 * dim), nn.GELU(), nn.Linear(4 * dim, dim))

    def forward(self, x, causal):
        h = self.ln1(x)
        x = x + self.attn(h, h, h, attn_mask=causal, need_weights=False)[0]
        return x + self.mlp(self.ln2(x))


class GPT(nn.Module):
    def __init__(self):
        super().__init__()
        self.wte = nn.Embedding(args.vocab, args.dim)
        self.wpe = nn.Embedding(args.block, args.dim)
        self.blocks = nn.ModuleList(Block(args.dim, args.heads) for _ in range(args.layers))
        self.ln_f = nn.LayerNorm(args.dim)
        self.lm_head = nn.Linear(args.dim, args.vocab, bias=False)
        self.lm_head.weight = self.wte.weight  # weight tying

    def forward(self, idx, targets):
        T = idx.size(1)
        causal = torch.triu(torch.ones(T, T, dtype=torch.bool, device=idx.device), 1)
        x = self.wte(idx) + self.wpe(torch.arange(T, device=idx.device))
        for b in self.blocks:
            x = b(x, causal)
        logits = self.lm_head(self.ln_f(x))
        return F.cross_entropy(logits.view(-1, logits.size(-1)), targets.view(-1))


model = GPT().to(device)
max_lr = args.lr * hvd.size()
min_lr = args.min_lr * hvd.size()
optimizer = torch.optim.AdamW(model.parameters(), lr=max_lr, betas=(0.9, 0.95), weight_decay=0.1)
optimizer = hvd.DistributedOptimizer(optimizer, named_parameters=model.named_parameters())
hvd.broadcast_parameters(model.state_dict(), root_rank=0)
hvd.broadcast_optimizer_state(optimizer, root_rank=0)


def lr_at(step):
    if step < args.warmup:
        return max_lr * (step + 1) / args.warmup
    progress = min(1.0, (step - args.warmup) / max(1, args.steps - args.warmup))
    return min_lr + 0.5 * (max_lr - min_lr) * (1 + math.cos(math.pi * progress))


@torch.no_grad()
def estimate_val_loss():
    model.eval()
    losses = torch.zeros(args.eval_iters)
    for k in range(args.eval_iters):
        losses[k] = model(*get_batch(val_data)).item()
    model.train()
    return hvd.allreduce(losses.mean(), name="val_loss").item()


os.makedirs(args.out, exist_ok=True)
t0 = time.time()
for step in range(args.steps):
    for g in optimizer.param_groups:
        g["lr"] = lr_at(step)
    optimizer.zero_grad()
    for micro in range(args.accum):
        loss = model(*get_batch(train_data)) / args.accum
        loss.backward()
    optimizer.synchronize()
    torch.nn.utils.clip_grad_norm_(model.parameters(), args.grad_clip)
    with optimizer.skip_synchronize():
        optimizer.step()

    if step % 100 == 0:
        train_loss = hvd.allreduce(loss.detach() * args.accum, name="train_loss").item()
        if master:
            print(f"step {step} loss {train_loss:.4f} lr {lr_at(step):.2e} {time.time() - t0:.1f}s", flush=True)
    if step > 0 and step % args.eval_every == 0:
        val_loss = estimate_val_loss()
        if master:
            print(f"step {step} val_loss {val_loss:.4f} ppl {math.exp(val_loss):.1f}", flush=True)
        torch.save({"model": model.state_dict(), "optimizer": optimizer.state_dict(), "step": step,
                    "args": vars(args)}, os.path.join(args.out, "latest.pt"))
