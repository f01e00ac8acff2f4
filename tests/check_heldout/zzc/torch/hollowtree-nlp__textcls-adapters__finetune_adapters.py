# -*- coding: utf-8 -*-
"""
Parameter-efficient fine-tuning of our in-house pretrained text encoder with
bottleneck adapters (Houlsby et al., 2019). Only the adapters, the LayerNorms and the
classification head are trained; the encoder weights come from `--encoder-ckpt`.

    horovodrun -np 4 python finetune_adapters.py --train data/sst2_train.pt --dev data/sst2_dev.pt
"""
import argparse
import json
import os

import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.data import DataLoader, TensorDataset
from torch.utils.data.distributed import DistributedSampler

import horovod.torch as hvd


class Adapter(nn.Module):
    def __init__(self, dim, bottleneck=64):
        super().__init__()
        self.down = nn.Linear(dim, bottleneck)
        self.up = nn.Linear(bottleneck, dim)
        nn.init.zeros_(self.up.weight)
        nn.init.zeros_(self.up.bias)

    def forward(self, h):
        return h + self.up(F.gelu(self.down(h)))


class EncoderLayerWithAdapter(nn.Module):
    def __init__(self, layer: nn.TransformerEncoderLayer, dim, bottleneck):
        super().__init__()
        self.layer = layer
        self.adapter = Adapter(dim, bottleneck)

    def forward(self, x, src_key_padding_mask=None):
        return self.adapter(self.layer(x, src_key_padding_mask=src_key_padding_mask))


class TextEncoder(nn.Module):
    def __init__(self, vocab=30522, dim=256, layers=4, heads=4, max_len=128):
        super().__init__()
        self.tok = nn.Embedding(vocab, dim, padding_idx=0)
        self.pos = nn.Embedding(max_len, dim)
        self.layers = nn.ModuleList([nn.TransformerEncoderLayer(dim, heads, 4 * dim, batch_first=True)
                                     for _ in range(layers)])
        self.dim = dim

    def add_adapters(self, bottleneck):
        self.layers = nn.ModuleList([EncoderLayerWithAdapter(l, self.dim, bottleneck) for l in self.layers])

    def forward(self, ids):
        pad = ids.eq(0)
        x = self.tok(ids) + self.pos(torch.arange(ids.size(1), device=ids.device))
        for layer in self.layers:
            x = layer(x, src_key_padding_mask=pad)
        keep = (~pad).unsqueeze(-1).float()
        return (x * keep).sum(1) / keep.sum(1).clamp(min=1.0)


class Trainer:
    def __init__(self, args, encoder, classifier, device):
        self.args, self.encoder, self.classifier, self.device = args, encoder, classifier, device
        for name, p in encoder.named_parameters():
            p.requires_grad = "adapter" in name or "norm" in name
        params = [p for p in encoder.parameters() if p.requires_grad] + list(classifier.parameters())
        opt = torch.optim.AdamW(params, lr=args.lr * hvd.size(), weight_decay=args.weight_decay)
        self.optimizer = hvd.DistributedOptimizer(opt, named_parameters=encoder.named_parameters())
        hvd.broadcast_parameters(encoder.state_dict(), root_rank=0)
        hvd.broadcast_parameters(classifier.state_dict(), root_rank=0)
        hvd.broadcast_optimizer_state(self.optimizer, root_rank=0)

    def _forward(self, ids):
        return self.classifier(self.encoder(ids))

    def train_epoch(self, loader, sampler, epoch):
        self.encoder.train(); self.classifier.train()
        sampler.set_epoch(epoch)
        for step, (ids, labels) in enumerate(loader):
            ids, labels = ids.to(self.device), labels.to(self.device)
            self.optimizer.zero_grad()
            loss = F.cross_entropy(self._forward(ids), labels)
            loss.backward()
            self.optimizer.step()
            if hvd.rank() == 0 and step % self.args.log_every == 0:
                print(f"epoch {epoch} step {step} loss {loss.item():.4f}", flush=True)

    @torch.no_grad()
    def evaluate(self, loader):
        self.encoder.eval(); self.classifier.eval()
        correct = total = 0
        for ids, labels in loader:
            ids, labels = ids.to(self.device), labels.to(self.device)
            correct += (self._forward(ids).argmax(-1) == labels).sum().item()
            total += labels.numel()
        sums = hvd.allreduce(torch.tensor([correct, total], dtype=torch.float64), op=hvd.Sum)
        return (sums[0] / sums[1]).item()

    def save(self, path, dev_acc):
        if hvd.rank() == 0:
            adapters = {k: v for k, v in self.encoder.state_dict().items() if "adapter" in k or "norm" in k}
            torch.save({"adapters": adapters, "classifier": self.classifier.state_dict(),
                        "dev_acc": dev_acc}, path)


def load_split(path):
    blob = torch.load(path)
    return TensorDataset(blob["input_ids"], blob["labels"])


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--train", default="data/sst2_train.pt")
    ap.add_argument("--dev", default="data/sst2_dev.pt")
    ap.add_argument("--encoder-ckpt", default="ckpt/encoder_base.pt")
    ap.add_argument("--num-labels", type=int, default=2)
    ap.add_argument("--bottleneck", type=int, default=64)
    ap.add_argument("--batch-size", type=int, default=32)
    ap.add_argument("--lr", type=float, default=3e-4)
    ap.add_argument("--weight-decay", type=float, default=0.0)
    ap.add_argument("--epochs", type=int, default=10)
    ap.add_argument("--patience", type=int, default=2)
    ap.add_argument("--log-every", type=int, default=100)
    ap.add_argument("--output-dir", default="out/adapters")
    args = ap.parse_args()

    hvd.init()
    torch.manual_seed(17)
    if torch.cuda.is_available():
        torch.cuda.set_device(hvd.local_rank())
    device = torch.device("cuda" if torch.cuda.is_available() else "cpu")

    train_set, dev_set = load_split(args.train), load_split(args.dev)
    train_sampler = DistributedSampler(train_set, num_replicas=hvd.size(), rank=hvd.rank())
    dev_sampler = DistributedSampler(dev_set, num_replicas=hvd.size(), rank=hvd.rank(), shuffle=False)
    train_loader = DataLoader(train_set, batch_size=args.batch_size, sampler=train_sampler)
    dev_loader = DataLoader(dev_set, batch_size=128, sampler=dev_sampler)

    encoder = TextEncoder()
    encoder.load_state_dict(torch.load(args.encoder_ckpt, map_location="cpu"))
    encoder.add_adapters(args.bottleneck)
    classifier = nn.Sequential(nn.Dropout(0.1), nn.Linear(encoder.dim, args.num_labels))
    encoder.to(device); classifier.to(device)

    trainer = Trainer(args, encoder, classifier, device)
    os.makedirs(args.output_dir, exist_ok=True)
    best, bad = 0.0, 0
    for epoch in range(args.epochs):
        trainer.train_epoch(train_loader, train_sampler, epoch)
        acc = trainer.evaluate(dev_loader)
        if hvd.rank() == 0:
            print(json.dumps({"epoch": epoch, "dev_acc": round(acc, 4)}), flush=True)
        if acc > best:
            best, bad = acc, 0
            trainer.save(os.path.join(args.output_dir, "best_adapters.pt"), acc)
        else:
            bad += 1
            if bad > args.patience:
                break


if __name__ == "__main__":
    main()
