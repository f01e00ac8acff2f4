# Small causal LM trained on a pre-tokenized corpus (uint16 .bin, nanoGPT-style) with Horovod.
# Multi-node:  horovodrun -np 16 -H a:4,b:4,c:4,d:4 python train.py --data data/wiki103 --global-batch 256
import argparse
import math
import os
import time

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F
import horovod.torch as hvd

parser = argparse.ArgumentParser()
parser.add_argument("--data", default="data/wiki103")
parser.add_argument("--vocab", type=int, default=50304)
parser.add_argument("--ctx", type=int, default=256)
parser.add_argument("--d-model", type=int, default=384)
parser.add_argument("--n-layer", type=int, default=6)
parser.add_argument("--n-head", type=int, default=6)
parser.add_argument("--dropout", type=float, default=0.1)
parser.add_argument("--global-batch", type=int, default=256, help="sequences per optimizer step, all ranks")
parser.add_argument("--lr", type=float, default=6e-4, help="peak lr tuned for --global-batch 256")
parser.add_argument("--min-lr", type=float, default=6e-5)
parser.add_argument("--warmup", type=int, default=1000)
parser.add_argument("--max-iters", type=int, default=50000)
parser.add_argument("--eval-interval", type=int, default=1000)
parser.add_argument("--eval-iters", type=int, default=50)
parser.add_argument("--grad-clip", type=float, default=1.0)
parser.add_argument("--seed", type=int, default=1337)
parser.add_argument("--out", default="out/lm")
args = parser.parse_args()

hvd.init()
torch.manual_seed(args.seed + hvd.rank())
np.random.seed(args.seed + hvd.rank())
if torch.cuda.is_available():
    torch.cuda.set_device(hvd.local_rank())
device = "cuda" if torch.cuda.is_available() else "cpu"

# each rank takes its own contiguous slice of the token stream
train_tokens = np.memmap(os.path.join(args.data, "train.bin"), dtype=np.uint16, mode="r")
val_tokens = np.memmap(os.path.join(args.data, "val.bin"), dtype=np.uint16, mode="r")
span = len(train_tokens) // hvd.size()
train_tokens = train_tokens[hvd.rank() * span:(hvd.rank() + 1) * span]
vspan = len(val_tokens) // hvd.size()
val_tokens = val_tokens[hvd.rank() * vspan:(hvd.rank() + 1) * vspan]

batch_size = args.global_batch // hvd.size()


def get_batch(tokens):
    ix = np.random.randint(0, len(tokens) - args.ctx - 1, size=batch_size)
    x = torch.stack([torch.from_numpy(tokens[i:i + args.ctx].astype(np.int64)) for i in ix])
    y = torch.stack([torch.from_numpy(tokens[i + 1:i + 1 + args.ctx].astype(np.int64)) for i in ix])
    return x.to(device), y.to(device)


class Block(nn.Module):
    def __init__(self, d, h, p):
        super().__init__()
        self.ln1 = nn.LayerNorm(d)
        self.attn = nn.MultiheadAttention(d, h, dropout=p, batch_first=True)
        self.ln2 = nn.LayerNorm(d)
        self.mlp = nn.Sequential(nn.Linear(d, 4 * d), nn.GELU(), nn.Linear(4 * d, d), nn.Dropout(p))

    def forward(self, x, mask):
        h = self.ln1(x)
        x = x + self.attn(h, h, h, attn_mask=mask, need_weights=False)[0]
        return x + self.mlp(self.ln2(x))


class TinyGPT(nn.Module):
    def __init__(self):
        super().__init__()
        self.tok = nn.Embedding(args.vocab, args.d_model)
        self.pos = nn.Parameter(torch.zeros(1, args.ctx, args.d_model))
        self.blocks = nn.ModuleList([Block(args.d_model, args.n_head, args.dropout) for _ in range(args.n_layer)])
        self.ln = nn.LayerNorm(args.d_model)
        self.head = nn.Linear(args.d_model, args.vocab, bias=False)
        self.head.weight = self.tok.weight
        nn.init.normal_(self.pos, std=0.02)

    def forward(self, idx, targets=None):
        T = idx.size(1)
        mask = torch.triu(torch.ones(T, T, dtype=torch.bool, device=idx.device), 1)
        x = self.tok(idx) + self.pos[:, :T]
        for b in self.blocks:
            x = b(x, mask)
        logits = self.head(self.ln(x))
        loss = None if targets is None else F.cross_entropy(logits.flatten(0, 1), targets.flatten())
        return logits, loss


def lr_at(it, peak):
    if it < args.warmup:
        return peak * (it + 1) / args.warmup
    r = (it - args.warmup) / max(1, args.max_iters - args.warmup)
    return args.min_lr + 0.5 * (1 + math.cos(math.pi * min(r, 1.0))) * (peak - args.min_lr)


model = TinyGPT().to(device)
peak_lr = args.lr * hvd.size()
decay = [p for n, p in model.named_parameters() if p.dim() >= 2]
no_decay = [p for n, p in model.named_parameters() if p.dim() < 2]
optimizer = torch.optim.AdamW([{"params": decay, "weight_decay": 0.1},
                               {"params": no_decay, "weight_decay": 0.0}], lr=peak_lr, betas=(0.9, 0.95))
optimizer = hvd.DistributedOptimizer(optimizer, named_parameters=model.named_parameters())


@torch.no_grad()
def estimate_val_loss():
    model.eval()
    losses = torch.zeros(args.eval_iters)
    for k in range(args.eval_iters):
        x, y = get_batch(val_tokens)
        losses[k] = model(x, y)[1].item()
    model.train()
    return hvd.allreduce(losses.mean(), name="val_loss").item()


best_val = float("inf")
t0 = time.time()
for it in range(args.max_iters):
    lr = lr_at(it, peak_lr)
    for g in optimizer.param_groups:
        g["lr"] = lr
    x, y = get_batch(train_tokens)
    _, loss = model(x, y)
    optimizer.zero_grad()
    loss.backward()
    optimizer.synchronize()
    torch.nn.utils.clip_grad_norm_(model.parameters(), args.grad_clip)
    with optimizer.skip_synchronize():
        optimizer.step()

    if it % 100 == 0 and hvd.rank() == 0:
        print(f"iter {it} loss {loss.item():.4f} lr {lr:.2e} {(time.time() - t0) * 10:.0f}ms/it")
        t0 = time.time()
    if (it + 1) % args.eval_interval == 0:
        val = estimate_val_loss()
        if hvd.rank() == 0:
            print(f"iter {it + 1}: val loss {val:.4f} ppl {math.exp(val):.1f}")
            if val < best_val:
                best_val = val
                os.makedirs(args.out, exist_ok=True)
                torch.save({"model": model.state_dict(), "iter": it + 1, "val": val, "args": vars(args)},
                           os.path.join(args.out, "ckpt.pt"))
