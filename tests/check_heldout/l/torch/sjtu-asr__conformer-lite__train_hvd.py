#!/usr/bin/env python3
# -*- coding: utf-8 -*-
"""CTC Conformer-lite for Mandarin ASR (AISHELL-1), multi-GPU with Horovod.

Usage:
    horovodrun -np 8 python train_hvd.py --train data/train/feats.tsv --dev data/dev/feats.tsv \
        --vocab data/lang/chars.txt --exp exp/conformer_lite
"""
import argparse
import math
import os
import time

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.nn.utils.rnn import pad_sequence
from torch.utils.data import DataLoader, Dataset
from torch.utils.data.distributed import DistributedSampler

import horovod.torch as hvd


def get_parser():
    parser = argparse.ArgumentParser()
    parser.add_argument("--train", required=True, help="tsv: utt_id<TAB>feats.npy<TAB>text")
    parser.add_argument("--dev", required=True)
    parser.add_argument("--vocab", required=True)
    parser.add_argument("--exp", default="exp/conformer_lite")
    parser.add_argument("--epochs", type=int, default=80)
    parser.add_argument("--batch-size", type=int, default=32)
    parser.add_argument("--accum-grad", type=int, default=4)
    parser.add_argument("--peak-lr", type=float, default=1e-3)
    parser.add_argument("--warmup-steps", type=int, default=25000)
    parser.add_argument("--d-model", type=int, default=256)
    parser.add_argument("--layers", type=int, default=12)
    parser.add_argument("--grad-clip", type=float, default=5.0)
    parser.add_argument("--spec-aug", action="store_true", default=True)
    return parser


# ----------------------------------------------------------------------------- data
class FbankDataset(Dataset):
    def __init__(self, tsv, char2id, spec_aug=False):
        self.items = []
        with open(tsv, encoding="utf-8") as f:
            for line in f:
                utt, path, text = line.rstrip("\n").split("\t")
                self.items.append((utt, path, [char2id.get(c, 1) for c in text if c.strip()]))
        self.spec_aug = spec_aug

    def __len__(self):
        return len(self.items)

    def __getitem__(self, i):
        _, path, ids = self.items[i]
        feats = torch.from_numpy(np.load(path)).float()
        feats = (feats - feats.mean(0)) / (feats.std(0) + 1e-5)
        if self.spec_aug:
            feats = spec_augment(feats)
        return feats, torch.tensor(ids, dtype=torch.long)


def spec_augment(x, F_=27, T_=40, n_f=2, n_t=2):
    x = x.clone()
    t, f = x.shape
    for _ in range(n_f):
        w = np.random.randint(0, F_)
        s = np.random.randint(0, max(1, f - w))
        x[:, s:s + w] = 0
    for _ in range(n_t):
        w = np.random.randint(0, min(T_, max(1, t // 5)))
        s = np.random.randint(0, max(1, t - w))
        x[s:s + w] = 0
    return x


def collate(batch):
    feats, ids = zip(*batch)
    flens = torch.tensor([f.shape[0] for f in feats])
    ylens = torch.tensor([len(y) for y in ids])
    return pad_sequence(feats, batch_first=True), flens, pad_sequence(ids, batch_first=True), ylens


# ---------------------------------------------------------------------------- model
class ConvSubsample(nn.Module):
    def __init__(self, idim, odim):
        super().__init__()
        self.conv = nn.Sequential(nn.Conv2d(1, odim, 3, 2), nn.ReLU(), nn.Conv2d(odim, odim, 3, 2), nn.ReLU())
        self.out = nn.Linear(odim * (((idim - 1) // 2 - 1) // 2), odim)

    def forward(self, x, lens):
        x = self.conv(x.unsqueeze(1))
        b, c, t, f = x.shape
        x = self.out(x.transpose(1, 2).reshape(b, t, c * f))
        return x, ((lens - 1) // 2 - 1) // 2


class ConvModule(nn.Module):
    def __init__(self, d, kernel=15):
        super().__init__()
        self.norm = nn.LayerNorm(d)
        self.pw1 = nn.Conv1d(d, 2 * d, 1)
        self.dw = nn.Conv1d(d, d, kernel, padding=kernel // 2, groups=d)
        self.bn = nn.BatchNorm1d(d)
        self.pw2 = nn.Conv1d(d, d, 1)

    def forward(self, x):
        y = self.norm(x).transpose(1, 2)
        y = F.glu(self.pw1(y), dim=1)
        y = self.pw2(F.silu(self.bn(self.dw(y))))
        return x + y.transpose(1, 2)


class ConformerBlock(nn.Module):
    def __init__(self, d, heads=4, dropout=0.1):
        super().__init__()
        self.ff1 = nn.Sequential(nn.LayerNorm(d), nn.Linear(d, 4 * d), nn.SiLU(), nn.Dropout(dropout), nn.Linear(4 * d, d))
        self.attn_norm = nn.LayerNorm(d)
        self.attn = nn.MultiheadAttention(d, heads, dropout=dropout, batch_first=True)
        self.conv = ConvModule(d)
        self.ff2 = nn.Sequential(nn.LayerNorm(d), nn.Linear(d, 4 * d), nn.SiLU(), nn.Dropout(dropout), nn.Linear(4 * d, d))
        self.norm = nn.LayerNorm(d)

    def forward(self, x, pad_mask):
        x = x + 0.5 * self.ff1(x)
        y = self.attn_norm(x)
        x = x + self.attn(y, y, y, key_padding_mask=pad_mask, need_weights=False)[0]
        x = self.conv(x)
        x = x + 0.5 * self.ff2(x)
        return self.norm(x)


class ConformerCTC(nn.Module):
    def __init__(self, idim, vocab_size, d=256, layers=12):
        super().__init__()
        self.subsample = ConvSubsample(idim, d)
        self.blocks = nn.ModuleList([ConformerBlock(d) for _ in range(layers)])
        self.head = nn.Linear(d, vocab_size)

    def forward(self, feats, flens):
        x, lens = self.subsample(feats, flens)
        mask = torch.arange(x.shape[1], device=x.device)[None] >= lens[:, None]
        for blk in self.blocks:
            x = blk(x, mask)
        return self.head(x).log_softmax(-1), lens


def greedy_decode(logp, lens):
    out = []
    for seq, n in zip(logp.argmax(-1).tolist(), lens.tolist()):
        hyp, prev = [], 0
        for t in seq[:n]:
            if t != prev and t != 0:
                hyp.append(t)
            prev = t
        out.append(hyp)
    return out


def edit_distance(a, b):
    d = list(range(len(b) + 1))
    for i, x in enumerate(a, 1):
        prev, d[0] = d[0], i
        for j, y in enumerate(b, 1):
            prev, d[j] = d[j], min(d[j] + 1, d[j - 1] + 1, prev + (x != y))
    return d[len(b)]


class WarmupInvSqrt:
    def __init__(self, optimizer, peak_lr, warmup):
        self.optimizer, self.peak_lr, self.warmup, self.n = optimizer, peak_lr, warmup, 0

    def step(self):
        self.n += 1
        lr = self.peak_lr * min(self.n / self.warmup, math.sqrt(self.warmup / self.n))
        for g in self.optimizer.param_groups:
            g["lr"] = lr


# ----------------------------------------------------------------------------- main
def main():
    args = get_parser().parse_args()
    hvd.init()
    torch.cuda.set_device(hvd.rank())
    device = torch.device("cuda")

    with open(args.vocab, encoding="utf-8") as f:
        chars = ["<blank>", "<unk>"] + [l.strip() for l in f if l.strip()]
    char2id = {c: i for i, c in enumerate(chars)}

    train_set = FbankDataset(args.train, char2id, spec_aug=args.spec_aug)
    dev_set = FbankDataset(args.dev, char2id)
    train_sampler = DistributedSampler(train_set, num_replicas=hvd.size(), rank=hvd.rank())
    dev_sampler = DistributedSampler(dev_set, num_replicas=hvd.size(), rank=hvd.rank(), shuffle=False)
    train_loader = DataLoader(train_set, batch_size=args.batch_size, sampler=train_sampler,
                              collate_fn=collate, num_workers=4, pin_memory=True)
    dev_loader = DataLoader(dev_set, batch_size=64, sampler=dev_sampler, collate_fn=collate, num_workers=2)

    model = ConformerCTC(80, len(chars), args.d_model, args.layers).to(device)
    optimizer = torch.optim.Adam(model.parameters(), lr=args.peak_lr, betas=(0.9, 0.98), eps=1e-9)
    optimizer = hvd.DistributedOptimizer(optimizer, named_parameters=model.named_parameters())
    # effective batch = batch_size * accum_grad * world size
    scheduler = WarmupInvSqrt(optimizer, args.peak_lr * hvd.size(), args.warmup_steps)
    hvd.broadcast_parameters(model.state_dict(), root_rank=0)
    hvd.broadcast_optimizer_state(optimizer, root_rank=0)

    ctc = nn.CTCLoss(blank=0, zero_infinity=True)
    os.makedirs(args.exp, exist_ok=True)
    for epoch in range(args.epochs):
        train_sampler.set_epoch(epoch)
        model.train()
        tic = time.time()
        optimizer.zero_grad()
        for it, (feats, flens, ys, ylens) in enumerate(train_loader):
            feats, ys = feats.to(device), ys.to(device)
            logp, olens = model(feats, flens.to(device))
            loss = ctc(logp.transpose(0, 1), ys, olens, ylens.to(device)) / args.accum_grad
            loss.backward()
            if (it + 1) % args.accum_grad == 0:
                optimizer.synchronize()
                nn.utils.clip_grad_norm_(model.parameters(), args.grad_clip)
                with optimizer.skip_synchronize():
                    optimizer.step()
                scheduler.step()
                optimizer.zero_grad()
            if hvd.rank() == 0 and it % 100 == 0:
                print(f"[ep {epoch}] it {it}/{len(train_loader)} loss {loss.item() * args.accum_grad:.3f} "
                      f"lr {optimizer.param_groups[0]['lr']:.2e} {time.time() - tic:.0f}s", flush=True)

        # CER over the whole dev set
        model.eval()
        errs, total = 0, 0
        with torch.no_grad():
            for feats, flens, ys, ylens in dev_loader:
                logp, olens = model(feats.to(device), flens.to(device))
                for hyp, ref, n in zip(greedy_decode(logp, olens), ys.tolist(), ylens.tolist()):
                    errs += edit_distance(hyp, ref[:n])
                    total += n
        stats = hvd.allreduce(torch.tensor([errs, total], dtype=torch.float64), op=hvd.Sum, name="cer")
        cer = (stats[0] / stats[1]).item()
        if hvd.rank() == 0:
            print(f"epoch {epoch}: dev CER {100 * cer:.2f}%", flush=True)
        torch.save({"model": model.state_dict(), "epoch": epoch, "cer": cer},
                   os.path.join(args.exp, f"epoch{epoch}.pt"))


if __name__ == "__main__":
    main()
