"""Bahdanau-attention GRU seq2seq (Multi30k de->en), data parallel with Horovod.

Lab code for the NLP reading group. Everything lives in this file on purpose.
"""
import argparse
import math
import os
import random
from collections import Counter

import torch
import torch.nn as nn
import torch.nn.functional as F
import torch.utils.data as tud
import horovod.torch as hvd

SPECIALS = ["<pad>", "<sos>", "<eos>", "<unk>"]


def get_args():
    p = argparse.ArgumentParser()
    p.add_argument("--data-dir", default="./multi30k")
    p.add_argument("--batch-size", type=int, default=64, help="sentences per rank")
    p.add_argument("--base-lr", type=float, default=1e-3)
    p.add_argument("--epochs", type=int, default=15)
    p.add_argument("--clip", type=float, default=1.0)
    p.add_argument("--smoothing", type=float, default=0.1)
    p.add_argument("--ckpt-dir", default="./ckpt")
    p.add_argument("--fp16-allreduce", action="store_true")
    p.add_argument("--seed", type=int, default=1234)
    return p.parse_args()


class Vocab:
    def __init__(self, sents, min_freq=2):
        c = Counter(w for s in sents for w in s)
        self.itos = SPECIALS + sorted(w for w in c if c[w] >= min_freq)
        self.stoi = {w: i for i, w in enumerate(self.itos)}

    def __call__(self, s):
        return [1] + [self.stoi.get(w, 3) for w in s] + [2]


def read(path):
    with open(path, encoding="utf-8") as f:
        return [l.lower().split() for l in f]


class Pairs(tud.Dataset):
    def __init__(self, src, tgt):
        self.src, self.tgt = src, tgt

    def __len__(self):
        return len(self.src)

    def __getitem__(self, i):
        return torch.tensor(self.src[i]), torch.tensor(self.tgt[i])


def collate(batch):
    s, t = zip(*batch)
    return nn.utils.rnn.pad_sequence(s, True), nn.utils.rnn.pad_sequence(t, True)


class Seq2Seq(nn.Module):
    def __init__(self, vs, vt, emb=256, hid=512):
        super().__init__()
        self.se, self.te = nn.Embedding(vs, emb, padding_idx=0), nn.Embedding(vt, emb, padding_idx=0)
        self.enc = nn.GRU(emb, hid, batch_first=True, bidirectional=True)
        self.bridge = nn.Linear(2 * hid, hid)
        self.att_w = nn.Linear(2 * hid + hid, hid)
        self.att_v = nn.Linear(hid, 1, bias=False)
        self.dec = nn.GRUCell(emb + 2 * hid, hid)
        self.out = nn.Linear(hid + 2 * hid + emb, vt)

    def encode(self, s):
        H, h = self.enc(self.se(s))
        return H, torch.tanh(self.bridge(torch.cat([h[0], h[1]], -1)))

    def step(self, y, h, H, mask):
        e = self.te(y)
        a = self.att_v(torch.tanh(self.att_w(torch.cat([H, h.unsqueeze(1).expand(-1, H.size(1), -1)], -1))))
        a = a.squeeze(-1).masked_fill(mask, -1e9).softmax(-1)
        ctx = torch.bmm(a.unsqueeze(1), H).squeeze(1)
        h = self.dec(torch.cat([e, ctx], -1), h)
        return self.out(torch.cat([h, ctx, e], -1)), h

    def forward(self, s, t):
        H, h = self.encode(s)
        mask, logits = s.eq(0), []
        for k in range(t.size(1) - 1):
            o, h = self.step(t[:, k], h, H, mask)
            logits.append(o)
        return torch.stack(logits, 1)

    @torch.no_grad()
    def greedy(self, s, max_len=50):
        H, h = self.encode(s)
        y = torch.ones(s.size(0), dtype=torch.long, device=s.device)
        out = []
        for _ in range(max_len):
            o, h = self.step(y, h, H, s.eq(0))
            y = o.argmax(-1)
            out.append(y)
        return torch.stack(out, 1)


def corpus_bleu(hyps, refs):
    logp, hl, rl = 0.0, 0, 0
    for n in range(1, 5):
        m = tot = 0
        for h, r in zip(hyps, refs):
            hc = Counter(zip(*[h[i:] for i in range(n)]))
            rc = Counter(zip(*[r[i:] for i in range(n)]))
            m, tot = m + sum((hc & rc).values()), tot + max(len(h) - n + 1, 0)
        logp += math.log(m / tot) / 4 if m else -1e9
    hl, rl = sum(map(len, hyps)), sum(map(len, refs))
    return 100 * math.exp(logp + min(0.0, 1 - rl / max(hl, 1)))


def strip(ids):
    return ids[:ids.index(2)] if 2 in ids else ids


def main():
    args = get_args()
    hvd.init()
    random.seed(args.seed)
    torch.manual_seed(args.seed)
    if torch.cuda.is_available():
        torch.cuda.set_device(hvd.local_rank())
        torch.cuda.manual_seed(args.seed)
    device = "cuda" if torch.cuda.is_available() else "cpu"

    d = args.data_dir
    tr_de, tr_en = read(f"{d}/train.de"), read(f"{d}/train.en")
    va_de, va_en = read(f"{d}/val.de"), read(f"{d}/val.en")
    V_de, V_en = Vocab(tr_de), Vocab(tr_en)  # deterministic: same ids on every rank
    train_ds = Pairs([V_de(s) for s in tr_de], [V_en(s) for s in tr_en])
    val_ds = Pairs([V_de(s) for s in va_de], [V_en(s) for s in va_en])

    sampler = tud.distributed.DistributedSampler(train_ds, num_replicas=hvd.size(), rank=hvd.rank())
    train_dl = tud.DataLoader(train_ds, args.batch_size, sampler=sampler, collate_fn=collate)
    val_dl = tud.DataLoader(val_ds, 128, shuffle=False, collate_fn=collate)

    model = Seq2Seq(len(V_de.itos), len(V_en.itos)).to(device)
    optimizer = torch.optim.Adam(model.parameters(), lr=args.base_lr * hvd.size())

    start = 0
    ckpt_path = os.path.join(args.ckpt_dir, "last.pt")
    if hvd.rank() == 0 and os.path.isfile(ckpt_path):
        st = torch.load(ckpt_path, map_location="cpu")
        model.load_state_dict(st["model"])
        optimizer.load_state_dict(st["optim"])
        start = st["epoch"] + 1
    start = hvd.broadcast_object(start, root_rank=0, name="start_epoch")
    hvd.broadcast_parameters(model.state_dict(), root_rank=0)
    hvd.broadcast_optimizer_state(optimizer, root_rank=0)

    compression = hvd.Compression.fp16 if args.fp16_allreduce else hvd.Compression.none
    optimizer = hvd.DistributedOptimizer(optimizer, named_parameters=model.named_parameters(),
                                         compression=compression)

    for epoch in range(start, args.epochs):
        sampler.set_epoch(epoch)
        model.train()
        for i, (s, t) in enumerate(train_dl):
            s, t = s.to(device), t.to(device)
            logits = model(s, t)
            loss = F.cross_entropy(logits.flatten(0, 1), t[:, 1:].flatten(), ignore_index=0,
                                   label_smoothing=args.smoothing)
            optimizer.zero_grad()
            loss.backward()
            optimizer.synchronize()
            nn.utils.clip_grad_norm_(model.parameters(), args.clip)
            with optimizer.skip_synchronize():
                optimizer.step()

        # validation is small (1k sentences): every rank decodes all of it
        model.eval()
        hyps, refs = [], []
        for s, t in val_dl:
            out = model.greedy(s.to(device), max_len=t.size(1) + 5).tolist()
            hyps += [strip(o) for o in out]
            refs += [strip(r[1:]) for r in t.tolist()]
        score = corpus_bleu(hyps, refs)
        if hvd.rank() == 0:
            print(f"[epoch {epoch}] val BLEU = {score:.2f}", flush=True)
            os.makedirs(args.ckpt_dir, exist_ok=True)
            torch.save({"model": model.state_dict(), "optim": optimizer.state_dict(), "epoch": epoch},
                       ckpt_path)


if __name__ == "__main__":
    main()
