"""Day 3 exercise: strong vs weak scaling of a character-level LSTM with Horovod.

Run on the training partition, e.g.

    srun -n 8 python train.py --scaling strong --global-batch 512
    srun -n 8 python train.py --scaling weak --batch-per-rank 64

and plot tokens/s from results/<scaling>_n<ranks>.csv with plot_scaling.py.
"""
import argparse
import csv
import math
import os
import time
from dataclasses import dataclass, fields

import torch
import torch.nn as nn
import horovod.torch as hvd


@dataclass
class Hparams:
    corpus: str = ""                 # plain-text file; a synthetic corpus is used when empty
    scaling: str = "strong"          # strong: fixed global batch; weak: fixed per-rank batch
    global_batch: int = 512
    batch_per_rank: int = 64
    seq_len: int = 128
    embed: int = 128
    hidden: int = 512
    layers: int = 2
    base_lr: float = 2e-3
    clip: float = 1.0
    epochs: int = 4
    steps_per_epoch: int = 200
    ckpt: str = "checkpoints/charlstm.pt"
    results: str = "results"


def parse() -> Hparams:
    ap = argparse.ArgumentParser()
    for f in fields(Hparams):
        ap.add_argument("--" + f.name.replace("_", "-"), type=type(f.default), default=f.default)
    return Hparams(**vars(ap.parse_args()))


class CharLSTM(nn.Module):
    def __init__(self, vocab, hp):
        super().__init__()
        self.emb = nn.Embedding(vocab, hp.embed)
        self.rnn = nn.LSTM(hp.embed, hp.hidden, hp.layers, batch_first=True)
        self.out = nn.Linear(hp.hidden, vocab)

    def forward(self, x):
        h, _ = self.rnn(self.emb(x))
        return self.out(h)


def load_text(path):
    if path and os.path.exists(path):
        with open(path, encoding="utf-8") as fh:
            return fh.read()
    words = ["horovod", "allreduce", "gradient", "node", "rank", "scaling", "slurm", "tensor"]
    g = torch.Generator().manual_seed(0)
    idx = torch.randint(len(words), (200_000,), generator=g)
    return " ".join(words[i] for i in idx.tolist())


def batches(data, batch, seq_len, steps, gen):
    for _ in range(steps):
        starts = torch.randint(0, len(data) - seq_len - 1, (batch,), generator=gen)
        x = torch.stack([data[s:s + seq_len] for s in starts])
        y = torch.stack([data[s + 1:s + seq_len + 1] for s in starts])
        yield x, y


def main():
    hp = parse()
    hvd.init()
    if torch.cuda.is_available():
        torch.cuda.set_device(hvd.local_rank())
    device = torch.device("cuda" if torch.cuda.is_available() else "cpu")

    text = load_text(hp.corpus)
    vocab = sorted(set(text))
    stoi = {c: i for i, c in enumerate(vocab)}
    data = torch.tensor([stoi[c] for c in text], dtype=torch.long)
    n_val = len(data) // 10
    train_data, val_data = data[:-n_val], data[-n_val:]

    # contiguous slice of the corpus per rank, same length on every rank
    chunk = len(train_data) // hvd.size()
    my_train = train_data[hvd.rank() * chunk:(hvd.rank() + 1) * chunk]
    vchunk = len(val_data) // hvd.size()
    my_val = val_data[hvd.rank() * vchunk:(hvd.rank() + 1) * vchunk]

    if hp.scaling == "strong":
        batch = hp.global_batch // hvd.size()
    else:
        batch = hp.batch_per_rank
    lr = hp.base_lr * hvd.size()   # linear scaling rule (Goyal et al.)

    model = CharLSTM(len(vocab), hp).to(device)
    optimizer = torch.optim.Adam(model.parameters(), lr=lr)
    optimizer = hvd.DistributedOptimizer(optimizer, named_parameters=model.named_parameters())

    start_epoch = 0
    if hvd.rank() == 0 and os.path.exists(hp.ckpt):
        state = torch.load(hp.ckpt, map_location="cpu")
        model.load_state_dict(state["model"])
        optimizer.load_state_dict(state["optimizer"])
        start_epoch = state["epoch"] + 1
    start_epoch = hvd.broadcast_object(start_epoch, root_rank=0, name="start_epoch")
    hvd.broadcast_parameters(model.state_dict(), root_rank=0)
    hvd.broadcast_optimizer_state(optimizer, root_rank=0)

    loss_fn = nn.CrossEntropyLoss()
    gen = torch.Generator().manual_seed(1000 + hvd.rank())

    os.makedirs(hp.results, exist_ok=True)
    csv_path = os.path.join(hp.results, f"{hp.scaling}_n{hvd.size()}.csv")
    writer = None
    if hvd.rank() == 0:
        fh = open(csv_path, "a", newline="")
        writer = csv.writer(fh)

    for epoch in range(start_epoch, hp.epochs):
        model.train()
        t0 = time.time()
        for x, y in batches(my_train, batch, hp.seq_len, hp.steps_per_epoch, gen):
            x, y = x.to(device), y.to(device)
            optimizer.zero_grad()
            loss = loss_fn(model(x).flatten(0, 1), y.flatten())
            loss.backward()
            optimizer.synchronize()
            nn.utils.clip_grad_norm_(model.parameters(), hp.clip)
            with optimizer.skip_synchronize():
                optimizer.step()
        dt = time.time() - t0
        tokens_s = hvd.size() * batch * hp.seq_len * hp.steps_per_epoch / dt

        model.eval()
        with torch.no_grad():
            vx, vy = next(batches(my_val, 64, hp.seq_len, 1, torch.Generator().manual_seed(epoch)))
            vloss = loss_fn(model(vx.to(device)).flatten(0, 1), vy.to(device).flatten())
        vloss = hvd.allreduce(vloss.cpu(), name="val_loss").item()

        if hvd.rank() == 0:
            print(f"epoch {epoch} val_loss {vloss:.3f} ppl {math.exp(vloss):.1f} "
                  f"tokens/s {tokens_s:,.0f} batch/rank {batch} lr {lr:g}", flush=True)
            writer.writerow([hvd.size(), hp.scaling, epoch, batch, tokens_s, vloss])
            os.makedirs(os.path.dirname(hp.ckpt), exist_ok=True)
            torch.save({"epoch": epoch, "model": model.state_dict(),
                        "optimizer": optimizer.state_dict()}, hp.ckpt)
    if writer is not None:
        fh.close()


if __name__ == "__main__":
    main()
