# Fine-tune a small protein language model (ESM-lite, 6 layers) on stability (ddG) labels.
#
#   horovodrun -np 4 python finetune.py --train data/megascale_train.tsv --val data/megascale_val.tsv \
#       --pretrained weights/esm_lite_6L.pt
#
# TSV format: sequence<TAB>ddG, one variant per line, header line starting with '#'.
import argparse
import math
import os
import time

import numpy as np
import torch
import torch.nn as nn
import horovod.torch as hvd

AA = "ACDEFGHIKLMNPQRSTVWY"
PAD, CLS, UNK = 0, 1, 2
TOK = {a: i + 3 for i, a in enumerate(AA)}


def read_tsv(path, max_len):
    seqs, ys = [], []
    with open(path) as fh:
        for line in fh:
            if line.startswith("#") or not line.strip():
                continue
            s, v = line.rstrip("\n").split("\t")[:2]
            seqs.append(s[:max_len])
            ys.append(float(v))
    return seqs, np.asarray(ys, dtype=np.float32)


def encode(batch_seqs):
    L = max(len(s) for s in batch_seqs) + 1
    out = torch.full((len(batch_seqs), L), PAD, dtype=torch.long)
    for i, s in enumerate(batch_seqs):
        out[i, 0] = CLS
        out[i, 1:len(s) + 1] = torch.tensor([TOK.get(c, UNK) for c in s])
    return out


class ESMLite(nn.Module):
    def __init__(self, dim=320, layers=6, heads=8, max_len=1024):
        super().__init__()
        self.tok = nn.Embedding(len(AA) + 3, dim, padding_idx=PAD)
        self.pos = nn.Embedding(max_len + 1, dim)
        layer = nn.TransformerEncoderLayer(dim, heads, 4 * dim, dropout=0.1, batch_first=True,
                                           norm_first=True)
        self.encoder = nn.TransformerEncoder(layer, layers)
        self.head = nn.Sequential(nn.LayerNorm(dim), nn.Linear(dim, 1))

    def forward(self, tokens):
        pos = torch.arange(tokens.shape[1], device=tokens.device)
        h = self.encoder(self.tok(tokens) + self.pos(pos), src_key_padding_mask=tokens.eq(PAD))
        return self.head(h[:, 0]).squeeze(-1)


def spearman(x, y):
    rx, ry = np.argsort(np.argsort(x)), np.argsort(np.argsort(y))
    return float(np.corrcoef(rx, ry)[0, 1])


def my_slice(n, epoch, seed):
    """Same permutation on every rank, each rank keeps every size-th index (equal lengths)."""
    perm = np.random.default_rng(seed + epoch).permutation(n)
    per_rank = n // hvd.size()
    return perm[hvd.rank()::hvd.size()][:per_rank]


def batches(seqs, ys, idx, bs):
    for i in range(0, len(idx) - bs + 1, bs):
        j = idx[i:i + bs]
        yield encode([seqs[k] for k in j]), torch.from_numpy(ys[j])


def save_checkpoint(path, model, optimizer, epoch, best):
    if hvd.rank() != 0:
        return
    os.makedirs(os.path.dirname(path) or ".", exist_ok=True)
    torch.save({"model": model.state_dict(), "optimizer": optimizer.state_dict(),
                "epoch": epoch, "best": best}, path)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--train", default="data/megascale_train.tsv")
    ap.add_argument("--val", default="data/megascale_val.tsv")
    ap.add_argument("--pretrained", default="")
    ap.add_argument("--ckpt", default="ckpt/esm_lite_ddg.pt")
    ap.add_argument("--bs", type=int, default=32)
    ap.add_argument("--lr", type=float, default=5e-5)
    ap.add_argument("--warmup", type=int, default=500)
    ap.add_argument("--epochs", type=int, default=10)
    ap.add_argument("--max-len", type=int, default=512)
    ap.add_argument("--seed", type=int, default=1234)
    args = ap.parse_args()

    hvd.init()
    device = "cpu"
    if torch.cuda.is_available():
        torch.cuda.set_device(hvd.local_rank())
        device = "cuda"
    torch.manual_seed(args.seed)

    tr_seqs, tr_y = read_tsv(args.train, args.max_len)
    va_seqs, va_y = read_tsv(args.val, args.max_len)
    mu, sd = tr_y.mean(), tr_y.std() + 1e-6

    model = ESMLite(max_len=args.max_len).to(device)
    if args.pretrained:
        missing, _ = model.load_state_dict(torch.load(args.pretrained, map_location="cpu"), strict=False)
        if hvd.rank() == 0:
            print("head initialised from scratch:", missing)

    peak_lr = args.lr * hvd.size()
    base = torch.optim.AdamW(model.parameters(), lr=peak_lr, weight_decay=0.01)
    steps_per_epoch = (len(tr_seqs) // hvd.size()) // args.bs
    total = max(1, steps_per_epoch * args.epochs)
    sched = torch.optim.lr_scheduler.LambdaLR(
        base, lambda s: min(1.0, (s + 1) / args.warmup) * 0.5 * (1 + math.cos(math.pi * min(s, total) / total)))
    optimizer = hvd.DistributedOptimizer(base, named_parameters=model.named_parameters(),
                                         compression=hvd.Compression.fp16)

    start_epoch, best = 0, -1.0
    if hvd.rank() == 0 and os.path.exists(args.ckpt):
        state = torch.load(args.ckpt, map_location="cpu")
        model.load_state_dict(state["model"])
        optimizer.load_state_dict(state["optimizer"])
        start_epoch, best = state["epoch"] + 1, state["best"]
    hvd.broadcast_parameters(model.state_dict(), root_rank=0)
    hvd.broadcast_optimizer_state(optimizer, root_rank=0)
    start_epoch, best = hvd.broadcast_object((start_epoch, best), root_rank=0, name="resume")
    for _ in range(start_epoch * steps_per_epoch):
        sched.step()

    loss_fn = nn.SmoothL1Loss()
    for epoch in range(start_epoch, args.epochs):
        model.train()
        t0 = time.time()
        for step, (tok, y) in enumerate(batches(tr_seqs, tr_y, my_slice(len(tr_seqs), epoch, args.seed), args.bs)):
            optimizer.zero_grad()
            loss = loss_fn(model(tok.to(device)), ((y - mu) / sd).to(device))
            loss.backward()
            optimizer.step()
            sched.step()

        model.eval()
        preds = []
        val_idx = np.arange(hvd.rank(), len(va_seqs), hvd.size())
        with torch.no_grad():
            for i in range(0, len(val_idx), 64):
                j = val_idx[i:i + 64]
                preds.append(model(encode([va_seqs[k] for k in j]).to(device)).cpu().numpy() * sd + mu)
        mine = (val_idx, np.concatenate(preds) if preds else np.zeros(0, np.float32))
        gathered = hvd.allgather_object(mine, name="val_preds")
        order = np.concatenate([g[0] for g in gathered])
        pred = np.concatenate([g[1] for g in gathered])
        rho = spearman(pred, va_y[order])
        if hvd.rank() == 0:
            print(f"epoch {epoch} train_loss(rank0) {loss.item():.4f} val_spearman {rho:.4f} "
                  f"lr {sched.get_last_lr()[0]:.2e} {time.time() - t0:.0f}s", flush=True)
        if rho > best:
            best = rho
            save_checkpoint(args.ckpt.replace(".pt", "_best.pt"), model, optimizer, epoch, best)
        save_checkpoint(args.ckpt, model, optimizer, epoch, best)


if __name__ == "__main__":
    main()
