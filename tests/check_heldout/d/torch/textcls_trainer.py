"""Sentiment classification (IMDB-style TSV) with a small transformer encoder.
Horovod data parallel, gradient accumulation via backward_passes_per_step.
"""
import argparse
import logging
import math
import os

import torch
import torch.nn as nn
from torch.utils.data import DataLoader, Dataset
from torch.utils.data.distributed import DistributedSampler
import horovod.torch as hvd

logging.basicConfig(level=logging.INFO, format="%(asctime)s [%(levelname)s] %(message)s")
log = logging.getLogger("textcls")

CONFIG = {
    "train_file": "data/imdb_train.tsv",
    "valid_file": "data/imdb_valid.tsv",
    "vocab_size": 30000,
    "max_len": 256,
    "d_model": 256,
    "n_layers": 4,
    "batch_size": 32,
    "accum_steps": 4,
    "lr": 3e-4,
    "epochs": 5,
    "warmup_steps": 500,
    "out_dir": "runs/textcls",
}


class TsvDataset(Dataset):
    def __init__(self, path, vocab_size, max_len):
        self.rows = []
        with open(path) as fh:
            for line in fh:
                label, text = line.rstrip("\n").split("\t", 1)
                ids = [hash(w) % (vocab_size - 2) + 2 for w in text.lower().split()][:max_len]
                self.rows.append((ids, int(label)))
        self.max_len = max_len

    def __len__(self):
        return len(self.rows)

    def __getitem__(self, i):
        ids, label = self.rows[i]
        x = torch.zeros(self.max_len, dtype=torch.long)
        x[: len(ids)] = torch.tensor(ids)
        return x, label


class Encoder(nn.Module):
    def __init__(self, vocab, d, layers, max_len):
        super().__init__()
        self.emb = nn.Embedding(vocab, d, padding_idx=0)
        self.pos = nn.Parameter(torch.zeros(1, max_len, d))
        layer = nn.TransformerEncoderLayer(d, nhead=8, dim_feedforward=4 * d, batch_first=True)
        self.enc = nn.TransformerEncoder(layer, layers)
        self.head = nn.Linear(d, 2)

    def forward(self, x):
        mask = x == 0
        h = self.enc(self.emb(x) + self.pos, src_key_padding_mask=mask)
        h = h.masked_fill(mask.unsqueeze(-1), 0).sum(1) / (~mask).sum(1, keepdim=True).clamp(min=1)
        return self.head(h)


class Trainer:
    def __init__(self, cfg):
        self.cfg = cfg
        hvd.init()
        self.rank = hvd.rank()
        self.device = torch.device("cuda", hvd.local_rank())
        torch.cuda.set_device(self.device)

        train_ds = TsvDataset(cfg["train_file"], cfg["vocab_size"], cfg["max_len"])
        valid_ds = TsvDataset(cfg["valid_file"], cfg["vocab_size"], cfg["max_len"])
        self.sampler = DistributedSampler(train_ds, num_replicas=hvd.size(), rank=hvd.rank())
        self.train_loader = DataLoader(train_ds, batch_size=cfg["batch_size"], sampler=self.sampler,
                                       num_workers=2, drop_last=True)
        self.valid_loader = DataLoader(valid_ds, batch_size=128, num_workers=2)

        self.model = Encoder(cfg["vocab_size"], cfg["d_model"], cfg["n_layers"], cfg["max_len"]).to(self.device)
        # effective batch = batch_size * accum_steps * size
        lr = cfg["lr"] * hvd.size()
        opt = torch.optim.AdamW(self.model.parameters(), lr=lr, weight_decay=0.01)
        self.optimizer = hvd.DistributedOptimizer(opt, named_parameters=self.model.named_parameters(),
                                                  backward_passes_per_step=cfg["accum_steps"])
        hvd.broadcast_parameters(self.model.state_dict(), root_rank=0)
        hvd.broadcast_optimizer_state(self.optimizer, root_rank=0)

        total = cfg["epochs"] * len(self.train_loader) // cfg["accum_steps"]
        warm = cfg["warmup_steps"]
        self.scheduler = torch.optim.lr_scheduler.LambdaLR(
            self.optimizer, lambda s: min(1.0, (s + 1) / warm) * 0.5 * (1 + math.cos(math.pi * min(s, total) / total)))
        self.criterion = nn.CrossEntropyLoss()

    def train_epoch(self, epoch):
        self.model.train()
        self.sampler.set_epoch(epoch)
        acc = self.cfg["accum_steps"]
        total_loss = torch.zeros(1, device=self.device)
        n = 0
        self.optimizer.zero_grad()
        for i, (x, y) in enumerate(self.train_loader):
            x, y = x.to(self.device), y.to(self.device)
            loss = self.criterion(self.model(x), y) / acc
            loss.backward()
            total_loss += loss.detach() * acc
            n += 1
            if (i + 1) % acc == 0:
                self.optimizer.step()
                self.scheduler.step()
                self.optimizer.zero_grad()
        avg = hvd.allreduce(total_loss / n, name="train_loss")
        return avg.item()

    @torch.no_grad()
    def validate(self):
        self.model.eval()
        correct, total = 0, 0
        for x, y in self.valid_loader:
            pred = self.model(x.to(self.device)).argmax(-1).cpu()
            correct += (pred == y).sum().item()
            total += y.numel()
        return correct / total

    def save(self, epoch):
        os.makedirs(self.cfg["out_dir"], exist_ok=True)
        path = os.path.join(self.cfg["out_dir"], f"epoch{epoch}.pt")
        torch.save({"model": self.model.state_dict(), "epoch": epoch}, path)
        log.info("saved %s", path)

    def fit(self):
        best = 0.0
        for epoch in range(self.cfg["epochs"]):
            loss = self.train_epoch(epoch)
            acc = self.validate()
            if self.rank == 0:
                log.info("epoch %d loss %.4f val_acc %.4f", epoch, loss, acc)
            if acc > best:
                best = acc
                self.save(epoch)


if __name__ == "__main__":
    parser = argparse.ArgumentParser()
    parser.add_argument("--epochs", type=int, default=CONFIG["epochs"])
    parser.add_argument("--out-dir", default=CONFIG["out_dir"])
    a = parser.parse_args()
    CONFIG.update(epochs=a.epochs, out_dir=a.out_dir)
    Trainer(CONFIG).fit()
