"""Continue training a small decoder-only LM on WikiText-2 (word level), Horovod data parallel.

Run:  horovodrun -np 4 python train.py --data ./wikitext-2 --epochs 6
"""
import argparse
import math
import os
import time

import torch
import torch.nn as nn
import horovod.torch as hvd


def parse_args():
    p = argparse.ArgumentParser("wikitext LM")
    p.add_argument("--data", default="./wikitext-2")
    p.add_argument("--bptt", type=int, default=128)
    p.add_argument("--global-batch", type=int, default=32 * hvd.size(),
                   help="sequences per optimizer step over all workers")
    p.add_argument("--lr", type=float, default=2.5e-4)
    p.add_argument("--warmup", type=int, default=300)
    p.add_argument("--epochs", type=int, default=6)
    p.add_argument("--d-model", type=int, default=256)
    p.add_argument("--layers", type=int, default=4)
    p.add_argument("--ckpt", default="ckpt/lm_last.pt")
    return p.parse_args()


class Corpus:
    def __init__(self, path):
        self.w2i = {"<eos>": 0}
        self.train = self.tokenize(os.path.join(path, "wiki.train.tokens"))
        self.valid = self.tokenize(os.path.join(path, "wiki.valid.tokens"))

    def tokenize(self, path):
        ids = []
        with open(path, encoding="utf8") as f:
            for line in f:
                for w in line.split() + ["<eos>"]:
                    ids.append(self.w2i.setdefault(w, len(self.w2i)))
        return torch.tensor(ids, dtype=torch.long)


def to_sequences(stream, bptt):
    n = (stream.numel() - 1) // bptt
    x = stream[: n * bptt].view(n, bptt)
    y = stream[1: n * bptt + 1].view(n, bptt)
    return torch.utils.data.TensorDataset(x, y)


class DecoderLM(nn.Module):
    def __init__(self, vocab, d_model, layers, bptt):
        super().__init__()
        self.emb = nn.Embedding(vocab, d_model)
        self.pos = nn.Parameter(torch.zeros(1, bptt, d_model))
        layer = nn.TransformerEncoderLayer(d_model, 4, 4 * d_model, 0.1, batch_first=True, norm_first=True)
        self.body = nn.TransformerEncoder(layer, layers)
        self.out = nn.Linear(d_model, vocab)

    def forward(self, x):
        T = x.size(1)
        causal = nn.Transformer.generate_square_subsequent_mask(T, device=x.device)
        h = self.body(self.emb(x) + self.pos[:, :T], mask=causal, is_causal=True)
        return self.out(h)


def main():
    args = parse_args()
    hvd.init()
    torch.manual_seed(0)
    cuda = torch.cuda.is_available()
    if cuda:
        torch.cuda.set_device(hvd.local_rank())
    device = torch.device("cuda" if cuda else "cpu")

    corpus = Corpus(args.data)
    train_ds = to_sequences(corpus.train, args.bptt)
    valid_ds = to_sequences(corpus.valid, args.bptt)
    per_rank = args.global_batch // hvd.size()
    train_sampler = torch.utils.data.distributed.DistributedSampler(train_ds, hvd.size(), hvd.rank())
    valid_sampler = torch.utils.data.distributed.DistributedSampler(valid_ds, hvd.size(), hvd.rank(), shuffle=False)
    train_loader = torch.utils.data.DataLoader(train_ds, batch_size=per_rank, sampler=train_sampler, drop_last=True)
    valid_loader = torch.utils.data.DataLoader(valid_ds, batch_size=per_rank, sampler=valid_sampler)

    model = DecoderLM(len(corpus.w2i), args.d_model, args.layers, args.bptt).to(device)
    # global batch is fixed, so the single-process lr is kept
    optimizer = torch.optim.Adam(model.parameters(), lr=args.lr)
    optimizer = hvd.DistributedOptimizer(optimizer, named_parameters=model.named_parameters())
    total_steps = args.epochs * len(train_loader)
    scheduler = torch.optim.lr_scheduler.SequentialLR(optimizer, [
        torch.optim.lr_scheduler.LinearLR(optimizer, 0.01, 1.0, total_iters=args.warmup),
        torch.optim.lr_scheduler.LinearLR(optimizer, 1.0, 0.0, total_iters=max(1, total_steps - args.warmup)),
    ], milestones=[args.warmup])

    start_epoch = 0
    if hvd.rank() == 0 and os.path.isfile(args.ckpt):
        state = torch.load(args.ckpt, map_location="cpu")
        model.load_state_dict(state["model"])
        optimizer.load_state_dict(state["optimizer"])
        scheduler.load_state_dict(state["scheduler"])
        start_epoch = state["epoch"] + 1
    hvd.broadcast_parameters(model.state_dict(), root_rank=0)
    hvd.broadcast_optimizer_state(optimizer, root_rank=0)
    start_epoch, sched_state = hvd.broadcast_object((start_epoch, scheduler.state_dict()), root_rank=0)
    scheduler.load_state_dict(sched_state)

    criterion = nn.CrossEntropyLoss()
    for epoch in range(start_epoch, args.epochs):
        model.train()
        train_sampler.set_epoch(epoch)
        t0 = time.time()
        for i, (x, y) in enumerate(train_loader):
            x, y = x.to(device), y.to(device)
            optimizer.zero_grad()
            loss = criterion(model(x).flatten(0, 1), y.flatten())
            loss.backward()
            optimizer.step()
            scheduler.step()
            if i % 100 == 0 and hvd.rank() == 0:
                print(f"| epoch {epoch} | {i}/{len(train_loader)} | loss {loss.item():.3f} "
                      f"| lr {scheduler.get_last_lr()[0]:.2e} | {time.time() - t0:.0f}s", flush=True)

        model.eval()
        sums = torch.zeros(2, dtype=torch.float64)
        with torch.no_grad():
            for x, y in valid_loader:
                x, y = x.to(device), y.to(device)
                sums[0] += nn.functional.cross_entropy(model(x).flatten(0, 1), y.flatten(), reduction="sum").item()
                sums[1] += y.numel()
        sums = hvd.allreduce(sums, op=hvd.Sum, name="valid_nll")
        val_loss = (sums[0] / sums[1]).item()
        if hvd.rank() == 0:
            print(f"=> epoch {epoch} valid loss {val_loss:.3f} ppl {math.exp(val_loss):.1f}")
            os.makedirs(os.path.dirname(args.ckpt), exist_ok=True)
            torch.save({"model": model.state_dict(), "optimizer": optimizer.state_dict(),
                        "scheduler": scheduler.state_dict(), "epoch": epoch}, args.ckpt)


if __name__ == "__main__":
    main()
