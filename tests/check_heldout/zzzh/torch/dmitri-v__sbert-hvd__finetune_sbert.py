#!/usr/bin/env python3
"""
Fine-tune a small sentence encoder for caption search with MultipleNegativesRanking loss.
Pairs are (caption, noised caption of the same image); evaluation is caption->caption MRR@10
over the validation corpus.

    horovodrun -np 4 -H localhost:4 python finetune_sbert.py --data-dir data/coco --out out/sbert
"""
import argparse
import logging
import os
import random
import zlib

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.data import Dataset, DataLoader
from torch.utils.data.distributed import DistributedSampler
import horovod.torch as hvd

logger = logging.getLogger(__name__)


def get_args():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--data-dir", required=True)
    ap.add_argument("--out", default="out/sbert")
    ap.add_argument("--epochs", type=int, default=4)
    ap.add_argument("--batch-size", type=int, default=64, help="pairs per worker")
    ap.add_argument("--base-lr", type=float, default=2e-4, help="lr for one worker")
    ap.add_argument("--scale", type=float, default=20.0, help="inverse temperature")
    ap.add_argument("--max-grad-norm", type=float, default=1.0)
    ap.add_argument("--no-amp", action="store_true")
    ap.add_argument("--resume", default="")
    return ap.parse_args()


def tok(s, n=32, V=20011):
    ids = [zlib.crc32(w.encode()) % (V - 1) + 1 for w in s.split()][:n]
    return ids + [0] * (n - len(ids))


class NoisyPairs(Dataset):
    def __init__(self, captions, drop=0.2, seed=0):
        self.caps, self.drop, self.rng = captions, drop, random.Random(seed)

    def __len__(self):
        return len(self.caps)

    def __getitem__(self, i):
        words = self.caps[i].split()
        kept = [w for w in words if self.rng.random() > self.drop] or words[:1]
        return torch.tensor(tok(self.caps[i])), torch.tensor(tok(" ".join(kept)))


class SentenceEncoder(nn.Module):
    def __init__(self, V=20011, d=256):
        super().__init__()
        self.emb = nn.Embedding(V, d, padding_idx=0)
        self.enc = nn.TransformerEncoder(nn.TransformerEncoderLayer(d, 4, 512, batch_first=True), 2)

    def forward(self, ids):
        mask = ids == 0
        h = self.enc(self.emb(ids), src_key_padding_mask=mask)
        h = h.masked_fill(mask.unsqueeze(-1), 0).sum(1) / (~mask).sum(1, keepdim=True).clamp(min=1)
        return F.normalize(h, dim=-1)


def read_captions(path):
    with open(path) as f:
        return [l.rstrip("\n").split("\t", 1)[1].lower() for l in f if l.strip()]


@torch.no_grad()
def mrr_at_10(model, captions, device):
    """Each worker embeds a contiguous slice; the slices are gathered into the full corpus."""
    model.eval()
    parts = np.array_split(np.arange(len(captions)), hvd.size())[hvd.rank()]
    ids = torch.tensor([tok(captions[i]) for i in parts], dtype=torch.long)
    local = model(ids.to(device)).float()
    corpus = hvd.allgather(local, name="corpus")
    queries = hvd.allgather(model(torch.tensor(
        [tok(" ".join(captions[i].split()[::-1][:4])) for i in parts], dtype=torch.long).to(device)).float(),
        name="queries")
    top = (queries @ corpus.t()).topk(10, dim=1).indices
    gold = torch.arange(len(captions), device=device).unsqueeze(1)
    rank = (top == gold).float()
    rr = (rank / torch.arange(1, 11, device=device)).sum(1)
    model.train()
    return rr.mean().item()


def save(path, model, optimizer, scaler, epoch):
    if hvd.rank() != 0:
        return
    os.makedirs(os.path.dirname(path) or ".", exist_ok=True)
    torch.save({"model": model.state_dict(), "optim": optimizer.state_dict(),
                "scaler": scaler.state_dict(), "epoch": epoch}, path)


def main():
    args = get_args()
    hvd.init()
    logging.basicConfig(format=f"[{hvd.rank()}/{hvd.size()}] %(message)s",
                        level=logging.INFO if hvd.rank() == 0 else logging.ERROR)
    cuda = torch.cuda.is_available()
    if cuda:
        torch.cuda.set_device(hvd.local_rank())
    device = torch.device("cuda" if cuda else "cpu")
    amp = cuda and not args.no_amp

    train_caps = read_captions(os.path.join(args.data_dir, "train", "captions.tsv"))
    val_caps = read_captions(os.path.join(args.data_dir, "val", "captions.tsv"))
    ds = NoisyPairs(train_caps, seed=hvd.rank())
    sampler = DistributedSampler(ds, num_replicas=hvd.size(), rank=hvd.rank(), shuffle=True)
    loader = DataLoader(ds, batch_size=args.batch_size, sampler=sampler, drop_last=True)

    model = SentenceEncoder().to(device)
    optimizer = torch.optim.AdamW(model.parameters(), lr=args.base_lr * hvd.size(), weight_decay=0.01)
    scaler = torch.cuda.amp.GradScaler(enabled=amp)
    start = 0
    if args.resume and os.path.isfile(args.resume):
        ck = torch.load(args.resume, map_location="cpu")
        model.load_state_dict(ck["model"])
        optimizer.load_state_dict(ck["optim"])
        scaler.load_state_dict(ck["scaler"])
        start = ck["epoch"] + 1

    optimizer = hvd.DistributedOptimizer(optimizer, named_parameters=model.named_parameters(),
                                         compression=hvd.Compression.fp16 if amp else hvd.Compression.none)
    hvd.broadcast_parameters(model.state_dict(), root_rank=0)
    hvd.broadcast_optimizer_state(optimizer, root_rank=0)

    for epoch in range(start, args.epochs):
        sampler.set_epoch(epoch)
        for step, (a, b) in enumerate(loader):
            with torch.autocast(device_type=device.type, enabled=amp):
                ea, eb = model(a.to(device)), model(b.to(device))
                logits = args.scale * ea @ eb.t()
                labels = torch.arange(len(a), device=device)
                loss = (F.cross_entropy(logits, labels) + F.cross_entropy(logits.t(), labels)) / 2
            optimizer.zero_grad()
            scaler.scale(loss).backward()
            optimizer.synchronize()
            scaler.unscale_(optimizer)
            nn.utils.clip_grad_norm_(model.parameters(), args.max_grad_norm)
            with optimizer.skip_synchronize():
                scaler.step(optimizer)
            scaler.update()
            if step % 100 == 0:
                logger.info("epoch %d step %d loss %.4f", epoch, step, loss.item())
        mrr = mrr_at_10(model, val_caps, device)
        logger.info("epoch %d  val MRR@10 %.4f", epoch, mrr)
        save(os.path.join(args.out, "checkpoint.pt"), model, optimizer, scaler, epoch)


if __name__ == "__main__":
    main()
