# -*- coding: utf-8 -*-
"""Continue-pretraining / domain fine-tuning of our small Korean LM with Horovod.

Usage:
    horovodrun -np 4 -H localhost:4 python finetune_hvd.py \
        --train data/news_train.npy --valid data/news_valid.npy --init-from ckpt/base.pt
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
from torch.utils.data import DataLoader, Dataset
from torch.utils.data.distributed import DistributedSampler


def get_args():
    p = argparse.ArgumentParser()
    p.add_argument("--train", required=True)
    p.add_argument("--valid", required=True)
    p.add_argument("--init-from", default=None)
    p.add_argument("--output-dir", default="outputs/ko-ft")
    p.add_argument("--block-size", type=int, default=512)
    p.add_argument("--batch-size", type=int, default=8, help="per GPU")
    p.add_argument("--grad-accum", type=int, default=8)
    p.add_argument("--lr", type=float, default=2e-5)
    p.add_argument("--warmup-ratio", type=float, default=0.03)
    p.add_argument("--epochs", type=int, default=3)
    p.add_argument("--vocab-size", type=int, default=51200)
    p.add_argument("--hidden", type=int, default=768)
    p.add_argument("--save-steps", type=int, default=500)
    p.add_argument("--fp16", action="store_true")
    return p.parse_args()


class PackedBlocks(Dataset):
    def __init__(self, path, block_size):
        ids = np.load(path, mmap_mode="r")
        n = (len(ids) - 1) // block_size
        self.ids, self.bs, self.n = ids, block_size, n

    def __len__(self):
        return self.n

    def __getitem__(self, i):
        s = i * self.bs
        x = torch.as_tensor(np.array(self.ids[s:s + self.bs + 1]), dtype=torch.long)
        return x[:-1], x[1:]


class KoLM(nn.Module):
    def __init__(self, vocab, hidden, n_layers=4, n_heads=12, max_len=2048):
        super().__init__()
        self.wte = nn.Embedding(vocab, hidden)
        self.wpe = nn.Embedding(max_len, hidden)
        block = nn.TransformerEncoderLayer(hidden, n_heads, hidden * 4, batch_first=True,
                                           activation="gelu", norm_first=True)
        self.h = nn.TransformerEncoder(block, n_layers)
        self.ln_f = nn.LayerNorm(hidden)
        self.lm_head = nn.Linear(hidden, vocab, bias=False)

    def forward(self, x):
        T = x.shape[1]
        causal = torch.triu(torch.full((T, T), float("-inf"), device=x.device), 1)
        h = self.wte(x) + self.wpe(torch.arange(T, device=x.device))
        return self.lm_head(self.ln_f(self.h(h, mask=causal)))


def warmup_cosine(total, warmup):
    def f(step):
        if step < warmup:
            return float(step) / float(max(1, warmup))
        prog = float(step - warmup) / float(max(1, total - warmup))
        return max(0.0, 0.5 * (1.0 + math.cos(math.pi * prog)))
    return f


@torch.no_grad()
def evaluate(model, loader, device):
    model.eval()
    losses = []
    for x, y in loader:
        x, y = x.to(device), y.to(device)
        logits = model(x)
        losses.append(F.cross_entropy(logits.view(-1, logits.size(-1)), y.view(-1)).item())
    model.train()
    loss = sum(losses) / len(losses)
    return loss, math.exp(loss)


def main():
    args = get_args()
    hvd.init()
    torch.manual_seed(42)
    if torch.cuda.is_available():
        torch.cuda.set_device(hvd.local_rank())
    device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
    is_main = hvd.rank() == 0
    if is_main:
        os.makedirs(args.output_dir, exist_ok=True)

    train_ds = PackedBlocks(args.train, args.block_size)
    valid_ds = PackedBlocks(args.valid, args.block_size)
    train_sampler = DistributedSampler(train_ds, num_replicas=hvd.size(), rank=hvd.rank(), shuffle=True)
    valid_sampler = DistributedSampler(valid_ds, num_replicas=hvd.size(), rank=hvd.rank(), shuffle=False)
    train_dl = DataLoader(train_ds, batch_size=args.batch_size, sampler=train_sampler, drop_last=True)
    valid_dl = DataLoader(valid_ds, batch_size=args.batch_size, sampler=valid_sampler)

    model = KoLM(args.vocab_size, args.hidden).to(device)
    if args.init_from:
        model.load_state_dict(torch.load(args.init_from, map_location="cpu"))

    no_decay = ("bias", "ln", "norm")
    groups = [
        {"params": [p for n, p in model.named_parameters() if not any(k in n for k in no_decay)],
         "weight_decay": 0.01},
        {"params": [p for n, p in model.named_parameters() if any(k in n for k in no_decay)],
         "weight_decay": 0.0},
    ]
    optimizer = torch.optim.AdamW(groups, lr=args.lr, eps=1e-6)
    optimizer = hvd.DistributedOptimizer(optimizer, named_parameters=model.named_parameters(),
                                         backward_passes_per_step=args.grad_accum)
    hvd.broadcast_parameters(model.state_dict(), root_rank=0)
    hvd.broadcast_optimizer_state(optimizer, root=0)

    total_steps = len(train_dl) // args.grad_accum * args.epochs
    scheduler = torch.optim.lr_scheduler.LambdaLR(
        optimizer, warmup_cosine(total_steps, int(args.warmup_ratio * total_steps)))
    scaler = torch.cuda.amp.GradScaler(enabled=args.fp16)

    global_step = 0
    for epoch in range(args.epochs):
        train_sampler.set_epoch(epoch)
        t0 = time.time()
        for i, (x, y) in enumerate(train_dl):
            x, y = x.to(device), y.to(device)
            with torch.autocast(device.type, enabled=args.fp16):
                logits = model(x)
                loss = F.cross_entropy(logits.view(-1, logits.size(-1)), y.view(-1)) / args.grad_accum
            scaler.scale(loss).backward()
            if (i + 1) % args.grad_accum != 0:
                continue
            optimizer.synchronize()
            scaler.unscale_(optimizer)
            nn.utils.clip_grad_norm_(model.parameters(), 1.0)
            with optimizer.skip_synchronize():
                scaler.step(optimizer)
            scaler.update()
            scheduler.step()
            optimizer.zero_grad()
            global_step += 1
            if is_main and global_step % 50 == 0:
                print(f"ep {epoch} step {global_step}/{total_steps} loss {loss.item() * args.grad_accum:.4f} "
                      f"lr {scheduler.get_last_lr()[0]:.2e} ({time.time() - t0:.0f}s)")
            if is_main and global_step % args.save_steps == 0:
                torch.save(model.state_dict(), os.path.join(args.output_dir, f"step{global_step}.pt"))

        val_loss, ppl = evaluate(model, valid_dl, device)
        if is_main:
            print(f"== epoch {epoch} valid loss {val_loss:.4f} ppl {ppl:.2f}")
            torch.save(model.state_dict(), os.path.join(args.output_dir, "last.pt"))


if __name__ == "__main__":
    main()
