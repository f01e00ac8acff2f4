# Abstractive summarization (CNN/DailyMail, pre-tokenized jsonl) -- attention GRU seq2seq.
# Copy mechanism lives in the `pointer` branch; this is the plain baseline used for the paper table.
#
#   horovodrun -np 4 python train.py --data data/cnndm --epochs 15
import argparse
import json
import math
import os
from collections import Counter

import horovod.torch as hvd
import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.data import DataLoader
from torch.utils.data.distributed import DistributedSampler

parser = argparse.ArgumentParser()
parser.add_argument("--data", default="data/cnndm")
parser.add_argument("--vocab-size", type=int, default=50000)
parser.add_argument("--batch-size", type=int, default=32)
parser.add_argument("--lr", type=float, default=0.15)
parser.add_argument("--warmup-steps", type=int, default=1000)
parser.add_argument("--epochs", type=int, default=15)
parser.add_argument("--max-grad-norm", type=float, default=2.0)
parser.add_argument("--fp16", action="store_true")
parser.add_argument("--resume", default=None)
parser.add_argument("--ckpt-dir", default="ckpt")
parser.add_argument("--seed", type=int, default=7)
args = parser.parse_args()

hvd.init()
torch.manual_seed(args.seed + hvd.rank())  # different dropout masks per worker
device = torch.device("cuda")


def load_jsonl(name):
    with open(os.path.join(args.data, name)) as f:
        return [json.loads(line) for line in f]


train_rows, val_rows = load_jsonl("train.jsonl"), load_jsonl("val.jsonl")
counter = Counter(w for r in train_rows for w in r["article"].split() + r["abstract"].split())
itos = ["<pad>", "<unk>", "<s>", "</s>"] + [w for w, _ in counter.most_common(args.vocab_size - 4)]
stoi = {w: i for i, w in enumerate(itos)}


def encode(text, limit):
    return [stoi.get(w, 1) for w in text.split()[:limit]]


def collate(rows):
    src = [torch.tensor(encode(r["article"], 400)) for r in rows]
    tgt = [torch.tensor([2] + encode(r["abstract"], 100) + [3]) for r in rows]
    return (nn.utils.rnn.pad_sequence(src, batch_first=True), nn.utils.rnn.pad_sequence(tgt, batch_first=True))


class AttnSeq2Seq(nn.Module):
    def __init__(self, vocab, emb=128, hid=256):
        super().__init__()
        self.emb = nn.Embedding(vocab, emb, padding_idx=0)
        self.enc = nn.GRU(emb, hid, batch_first=True, bidirectional=True)
        self.bridge = nn.Linear(2 * hid, hid)
        self.dec = nn.GRU(emb + 2 * hid, hid, batch_first=True)
        self.attn = nn.Linear(hid, 2 * hid, bias=False)
        self.out = nn.Linear(hid + 2 * hid, vocab)

    def forward(self, src, tgt_in):
        enc, _ = self.enc(self.emb(src))
        h = torch.tanh(self.bridge(enc.mean(1))).unsqueeze(0)
        ctx = enc.new_zeros(src.size(0), 1, enc.size(2))
        logits = []
        for t in range(tgt_in.size(1)):
            o, h = self.dec(torch.cat([self.emb(tgt_in[:, t:t + 1]), ctx], -1), h)
            scores = torch.bmm(self.attn(o), enc.transpose(1, 2)).masked_fill(src.eq(0).unsqueeze(1), -1e9)
            ctx = torch.bmm(scores.softmax(-1), enc)
            logits.append(self.out(torch.cat([o, ctx], -1)))
        return torch.cat(logits, 1)


def rouge1_counts(hyp, ref):
    overlap = sum((Counter(hyp) & Counter(ref)).values())
    return [overlap, len(hyp), len(ref)]


train_ds, val_ds = train_rows, val_rows
train_sampler = DistributedSampler(train_ds, num_replicas=hvd.size(), rank=hvd.rank())
val_sampler = DistributedSampler(val_ds, num_replicas=hvd.size(), rank=hvd.rank(), shuffle=False)
train_loader = DataLoader(train_ds, batch_size=args.batch_size, sampler=train_sampler, collate_fn=collate)
val_loader = DataLoader(val_ds, batch_size=args.batch_size, sampler=val_sampler, collate_fn=collate)

model = AttnSeq2Seq(len(itos)).to(device)
optimizer = torch.optim.Adagrad(model.parameters(), lr=args.lr * hvd.size(), initial_accumulator_value=0.1)
start_epoch = 0
if args.resume:
    ckpt = torch.load(args.resume, map_location="cpu")
    model.load_state_dict(ckpt["model"])
    optimizer.load_state_dict(ckpt["optimizer"])
    start_epoch = ckpt["epoch"] + 1
    hvd.broadcast_parameters(model.state_dict(), root_rank=0)
    hvd.broadcast_optimizer_state(optimizer, root_rank=0)

optimizer = hvd.DistributedOptimizer(optimizer, named_parameters=model.named_parameters())
base_lrs = [g["lr"] for g in optimizer.param_groups]
scaler = torch.cuda.amp.GradScaler(enabled=args.fp16)
step = start_epoch * len(train_loader)

for epoch in range(start_epoch, args.epochs):
    train_sampler.set_epoch(epoch)
    model.train()
    for src, tgt in train_loader:
        warm = min(1.0, (step + 1) / args.warmup_steps) * math.sqrt(args.warmup_steps / max(step + 1, args.warmup_steps))
        for g, base in zip(optimizer.param_groups, base_lrs):
            g["lr"] = base * warm
        src, tgt = src.to(device), tgt.to(device)
        optimizer.zero_grad()
        with torch.autocast("cuda", enabled=args.fp16):
            logits = model(src, tgt[:, :-1])
            loss = F.cross_entropy(logits.reshape(-1, logits.size(-1)), tgt[:, 1:].reshape(-1), ignore_index=0)
        scaler.scale(loss).backward()
        optimizer.synchronize()
        scaler.unscale_(optimizer)
        nn.utils.clip_grad_norm_(model.parameters(), args.max_grad_norm)
        with optimizer.skip_synchronize():
            scaler.step(optimizer)
        scaler.update()
        step += 1
        if step % 500 == 0 and hvd.rank() == 0:
            print(f"step {step} loss {loss.item():.3f} ppl {math.exp(min(loss.item(), 20)):.1f}", flush=True)

    model.eval()
    counts = torch.zeros(3)
    with torch.no_grad():
        for src, tgt in val_loader:
            pred = model(src.to(device), tgt[:, :-1].to(device)).argmax(-1).cpu()
            for p, r in zip(pred.tolist(), tgt[:, 1:].tolist()):
                counts += torch.tensor(rouge1_counts([w for w in p if w > 3], [w for w in r if w > 3]),
                                       dtype=torch.float)
    overlap, n_hyp, n_ref = hvd.allreduce(counts, op=hvd.Sum, name="rouge_counts").tolist()
    p, r = overlap / max(n_hyp, 1), overlap / max(n_ref, 1)
    if hvd.rank() == 0:
        print(f"epoch {epoch} val ROUGE-1 (teacher-forced) F {2 * p * r / max(p + r, 1e-9):.4f}")
        os.makedirs(args.ckpt_dir, exist_ok=True)
        torch.save({"model": model.state_dict(), "optimizer": optimizer.state_dict(), "epoch": epoch},
                   os.path.join(args.ckpt_dir, f"model_{epoch:02d}.pt"))
