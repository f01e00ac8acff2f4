"""Word-level Transformer language model on WikiText-103, data parallel with Horovod.

    horovodrun -np 8 python train_hvd.py --data data/wikitext-103 --epochs 10
"""
import argparse
import math
import os
import time

import horovod.torch as hvd
import torch
import torch.nn as nn


class Vocab:
    def __init__(self):
        self.idx = {}
        self.words = []

    def add(self, w):
        if w not in self.idx:
            self.idx[w] = len(self.words)
            self.words.append(w)
        return self.idx[w]


def tokenize(path, vocab):
    ids = []
    with open(path, encoding="utf8") as f:
        for line in f:
            for w in line.split() + ["<eos>"]:
                ids.append(vocab.add(w))
    return torch.tensor(ids, dtype=torch.long)


def my_part(ids, rank, world):
    """Contiguous 1/world of the token stream (same length on every rank)."""
    n = ids.size(0) // world
    return ids[rank * n:(rank + 1) * n]


def batchify(ids, bsz, device):
    nb = ids.size(0) // bsz
    return ids[:nb * bsz].view(bsz, -1).t().contiguous().to(device)


class PositionalEncoding(nn.Module):
    def __init__(self, d, max_len=4096):
        super().__init__()
        pos = torch.arange(max_len).unsqueeze(1)
        div = torch.exp(torch.arange(0, d, 2) * (-math.log(10000.0) / d))
        pe = torch.zeros(max_len, 1, d)
        pe[:, 0, 0::2] = torch.sin(pos * div)
        pe[:, 0, 1::2] = torch.cos(pos * div)
        self.register_buffer("pe", pe)

    def forward(self, x):
        return x + self.pe[: x.size(0)]


class TransformerLM(nn.Module):
    def __init__(self, ntok, d=512, heads=8, layers=6, dropout=0.1):
        super().__init__()
        self.emb = nn.Embedding(ntok, d)
        self.pos = PositionalEncoding(d)
        layer = nn.TransformerEncoderLayer(d, heads, 4 * d, dropout)
        self.enc = nn.TransformerEncoder(layer, layers)
        self.out = nn.Linear(d, ntok)
        self.d = d

    def forward(self, src):
        mask = nn.Transformer.generate_square_subsequent_mask(src.size(0)).to(src.device)
        h = self.enc(self.pos(self.emb(src) * math.sqrt(self.d)), mask)
        return self.out(h)


def get_batch(source, i, bptt):
    seq_len = min(bptt, len(source) - 1 - i)
    return source[i:i + seq_len], source[i + 1:i + 1 + seq_len].reshape(-1)


def evaluate(model, data, bptt, ntok):
    model.eval()
    total, count = 0.0, 0
    with torch.no_grad():
        for i in range(0, data.size(0) - 1, bptt):
            x, y = get_batch(data, i, bptt)
            out = model(x)
            total += nn.functional.cross_entropy(out.view(-1, ntok), y, reduction="sum").item()
            count += y.numel()
    stats = hvd.allreduce(torch.tensor([total, count], dtype=torch.float64), op=hvd.Sum)
    return (stats[0] / stats[1]).item()


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--data", default="data/wikitext-103")
    parser.add_argument("--epochs", type=int, default=10)
    parser.add_argument("--batch-size", type=int, default=32)
    parser.add_argument("--bptt", type=int, default=128)
    parser.add_argument("--lr", type=float, default=2e-4)
    parser.add_argument("--clip", type=float, default=0.0, help="0 disables clipping")
    parser.add_argument("--seed", type=int, default=1111)
    parser.add_argument("--save", default="checkpoints/tiny_lm.pt")
    parser.add_argument("--no-cuda", action="store_true")
    args = parser.parse_args()

    use_cuda = torch.cuda.is_available() and not args.no_cuda
    if use_cuda:
        hvd.init()
        torch.cuda.set_device(hvd.local_rank())
    device = torch.device("cuda" if use_cuda else "cpu")
    rank, world = hvd.rank(), hvd.size()
    # different dropout masks on every worker
    torch.manual_seed(args.seed + rank)

    vocab = Vocab()
    train_ids = tokenize(os.path.join(args.data, "wiki.train.tokens"), vocab)
    valid_ids = tokenize(os.path.join(args.data, "wiki.valid.tokens"), vocab)
    ntok = len(vocab.words)
    train_data = batchify(my_part(train_ids, rank, world), args.batch_size, device)
    valid_data = batchify(my_part(valid_ids, rank, world), 10, device)

    model = TransformerLM(ntok).to(device)
    optimizer = torch.optim.Adam(model.parameters(), lr=args.lr * world)
    optimizer = hvd.DistributedOptimizer(optimizer, named_parameters=model.named_parameters())

    best_val = None
    for epoch in range(1, args.epochs + 1):
        model.train()
        t0 = time.time()
        for batch, i in enumerate(range(0, train_data.size(0) - 1, args.bptt)):
            x, y = get_batch(train_data, i, args.bptt)
            optimizer.zero_grad()
            loss = nn.functional.cross_entropy(model(x).view(-1, ntok), y)
            loss.backward()
            if args.clip > 0:
                optimizer.synchronize()
                nn.utils.clip_grad_norm_(model.parameters(), args.clip)
                with optimizer.skip_synchronize():
                    optimizer.step()
            else:
                optimizer.step()
            if batch % 200 == 0 and rank == 0:
                print(f"| epoch {epoch} | batch {batch} | loss {loss.item():.3f} | {time.time() - t0:.0f}s")
        val_loss = evaluate(model, valid_data, args.bptt, ntok)
        if rank == 0:
            print(f"| end of epoch {epoch} | valid loss {val_loss:.3f} | valid ppl {math.exp(val_loss):.1f}")
            if best_val is None or val_loss < best_val:
                best_val = val_loss
                os.makedirs(os.path.dirname(args.save), exist_ok=True)
                torch.save(model.state_dict(), args.save)


if __name__ == "__main__":
    main()
