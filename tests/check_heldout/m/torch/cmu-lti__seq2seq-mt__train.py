#!/usr/bin/env python3
"""Transformer-base NMT (pre-tokenised, shared BPE vocab) on Horovod, mixed precision by default.

    horovodrun -np 16 -H n1:8,n2:8 python train.py --data data/wmt16_ende.pt
"""
import argparse
import math
import os
import time

import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.data import DataLoader, Dataset
from torch.utils.data.distributed import DistributedSampler
import horovod.torch as hvd

PAD, BOS, EOS = 0, 1, 2


class PairData(Dataset):
    def __init__(self, pairs, max_len):
        self.pairs = [(s[:max_len], t[:max_len]) for s, t in pairs]

    def __len__(self):
        return len(self.pairs)

    def __getitem__(self, i):
        return self.pairs[i]


def collate(batch):
    src_len = max(len(s) for s, _ in batch)
    tgt_len = max(len(t) for _, t in batch) + 2
    src = torch.full((len(batch), src_len), PAD, dtype=torch.long)
    tgt = torch.full((len(batch), tgt_len), PAD, dtype=torch.long)
    for i, (s, t) in enumerate(batch):
        src[i, :len(s)] = torch.tensor(s)
        tgt[i, :len(t) + 2] = torch.tensor([BOS] + list(t) + [EOS])
    return src, tgt


class PositionalEncoding(nn.Module):
    def __init__(self, d_model, max_len=1024):
        super().__init__()
        pos = torch.arange(max_len).unsqueeze(1)
        div = torch.exp(torch.arange(0, d_model, 2) * (-math.log(10000.0) / d_model))
        pe = torch.zeros(max_len, d_model)
        pe[:, 0::2] = torch.sin(pos * div)
        pe[:, 1::2] = torch.cos(pos * div)
        self.register_buffer("pe", pe)

    def forward(self, x):
        return x + self.pe[: x.size(1)]


class Seq2Seq(nn.Module):
    def __init__(self, vocab, d_model=512, nhead=8, layers=6, ff=2048, dropout=0.1):
        super().__init__()
        self.d_model = d_model
        self.emb = nn.Embedding(vocab, d_model, padding_idx=PAD)
        self.pos = PositionalEncoding(d_model)
        self.transformer = nn.Transformer(d_model, nhead, layers, layers, ff, dropout, batch_first=True,
                                          norm_first=True)
        self.proj = nn.Linear(d_model, vocab, bias=False)
        self.proj.weight = self.emb.weight

    def forward(self, src, tgt_in):
        mask = self.transformer.generate_square_subsequent_mask(tgt_in.size(1)).to(src.device)
        e = lambda x: self.pos(self.emb(x) * math.sqrt(self.d_model))  # noqa: E731
        h = self.transformer(e(src), e(tgt_in), tgt_mask=mask, src_key_padding_mask=src == PAD,
                             tgt_key_padding_mask=tgt_in == PAD, memory_key_padding_mask=src == PAD)
        return self.proj(h)


def noam(step, d_model, warmup):
    step = max(step, 1)
    return d_model ** -0.5 * min(step ** -0.5, step * warmup ** -1.5)


def parse_args():
    p = argparse.ArgumentParser()
    p.add_argument("--data", default="data/wmt16_ende.pt")
    p.add_argument("--save-dir", default="checkpoints/transformer_base")
    p.add_argument("--max-len", type=int, default=128)
    p.add_argument("--batch-size", type=int, default=64)
    p.add_argument("--epochs", type=int, default=30)
    p.add_argument("--lr-factor", type=float, default=1.0)
    p.add_argument("--warmup", type=int, default=4000)
    p.add_argument("--clip-norm", type=float, default=1.0)
    p.add_argument("--label-smoothing", type=float, default=0.1)
    p.add_argument("--log-interval", type=int, default=100)
    p.add_argument("--no-amp", dest="amp", action="store_false")
    return p.parse_args()


def main():
    args = parse_args()
    hvd.init()
    torch.cuda.set_device(hvd.local_rank())
    device = torch.device("cuda", hvd.local_rank())

    blob = torch.load(args.data)
    train_set = PairData(blob["train"], args.max_len)
    sampler = DistributedSampler(train_set, num_replicas=hvd.size(), rank=hvd.rank(), shuffle=True)
    loader = DataLoader(train_set, batch_size=args.batch_size, sampler=sampler, collate_fn=collate,
                        num_workers=2, pin_memory=True, drop_last=True)

    model = Seq2Seq(blob["vocab_size"]).to(device)
    optimizer = torch.optim.Adam(model.parameters(), lr=1.0, betas=(0.9, 0.98), eps=1e-9)
    optimizer = hvd.DistributedOptimizer(optimizer, named_parameters=model.named_parameters(),
                                         compression=hvd.Compression.fp16)
    hvd.broadcast_parameters(model.state_dict(), root_rank=0)
    hvd.broadcast_optimizer_state(optimizer, root_rank=0)
    scaler = torch.cuda.amp.GradScaler(enabled=args.amp)

    step = 0
    for epoch in range(args.epochs):
        model.train()
        sampler.set_epoch(epoch)
        t0 = time.time()
        for src, tgt in loader:
            src, tgt = src.to(device, non_blocking=True), tgt.to(device, non_blocking=True)
            lr = args.lr_factor * hvd.size() * noam(step + 1, model.d_model, args.warmup)
            for group in optimizer.param_groups:
                group["lr"] = lr
            optimizer.zero_grad()
            with torch.autocast("cuda", dtype=torch.float16, enabled=args.amp):
                logits = model(src, tgt[:, :-1])
                loss = F.cross_entropy(logits.reshape(-1, logits.size(-1)), tgt[:, 1:].reshape(-1),
                                       ignore_index=PAD, label_smoothing=args.label_smoothing)
            scaler.scale(loss).backward()
            scaler.unscale_(optimizer)
            nn.utils.clip_grad_norm_(model.parameters(), args.clip_norm)
            scaler.step(optimizer)
            scaler.update()

            if step % args.log_interval == 0:
                avg = hvd.allreduce(loss.detach(), name="train_loss", op=hvd.Average, average=True)
                if hvd.rank() == 0:
                    print(f"epoch {epoch} step {step} loss {avg.item():.4f} lr {lr:.2e} "
                          f"{time.time() - t0:.0f}s", flush=True)
            step += 1

        if hvd.rank() == 0:
            os.makedirs(args.save_dir, exist_ok=True)
            torch.save({"model": model.state_dict(), "optimizer": optimizer.state_dict(),
                        "scaler": scaler.state_dict(), "step": step, "epoch": epoch},
                       os.path.join(args.save_dir, f"checkpoint{epoch + 1}.pt"))


if __name__ == "__main__":
    main()
