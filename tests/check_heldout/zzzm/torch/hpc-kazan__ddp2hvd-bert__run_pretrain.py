#!/usr/bin/env python3
# Port of our DDP pretraining script to Horovod (cluster has no NCCL-enabled torch build).
# Env vars override CLI (the slurm wrapper sets them): LR, BATCH_SIZE, MAX_STEPS, OUTPUT_DIR,
# MLFLOW_TRACKING_URI.
import argparse
import json
import math
import os
import time

import numpy as np
import torch
import torch.nn as nn
from torch.utils.data import Dataset, DataLoader
from torch.utils.data.distributed import DistributedSampler

import horovod.torch as hvd

try:
    import mlflow
except ImportError:  # tracking is optional
    mlflow = None


def get_args():
    p = argparse.ArgumentParser(description="MLM pretraining (horovod)")
    p.add_argument("--data", type=str, default="", help=".npy of token ids, random if empty")
    p.add_argument("--vocab", type=int, default=8000)
    p.add_argument("--seq-len", type=int, default=128)
    p.add_argument("--hidden", type=int, default=256)
    p.add_argument("--layers", type=int, default=4)
    p.add_argument("--heads", type=int, default=4)
    p.add_argument("--batch-size", type=int, default=16)
    p.add_argument("--grad-accum", type=int, default=4)
    p.add_argument("--lr", type=float, default=1e-4)
    p.add_argument("--warmup", type=int, default=1000)
    p.add_argument("--max-steps", type=int, default=100000)
    p.add_argument("--save-every", type=int, default=2000)
    p.add_argument("--output-dir", type=str, default="./out")
    p.add_argument("--seed", type=int, default=1)
    args = p.parse_args()
    # env overrides (slurm wrapper)
    args.lr = float(os.environ.get("LR", args.lr))
    args.batch_size = int(os.environ.get("BATCH_SIZE", args.batch_size))
    args.max_steps = int(os.environ.get("MAX_STEPS", args.max_steps))
    args.output_dir = os.environ.get("OUTPUT_DIR", args.output_dir)
    return args


class TokenDataset(Dataset):
    def __init__(self, path, vocab, seq_len, n_random=4096):
        if path:
            self.data = np.load(path, mmap_mode="r")
        else:
            rng = np.random.RandomState(0)
            self.data = rng.randint(5, vocab, size=(n_random, seq_len))
        self.vocab = vocab

    def __len__(self):
        return len(self.data)

    def __getitem__(self, i):
        ids = torch.as_tensor(np.array(self.data[i]), dtype=torch.long)
        labels = ids.clone()
        mask = torch.rand(ids.shape) < 0.15
        labels[~mask] = -100
        ids = ids.masked_fill(mask, 4)  # [MASK]
        return ids, labels


class MiniBert(nn.Module):
    def __init__(self, vocab, hidden, layers, heads, seq_len):
        super().__init__()
        self.tok = nn.Embedding(vocab, hidden)
        self.pos = nn.Embedding(seq_len, hidden)
        layer = nn.TransformerEncoderLayer(hidden, heads, 4 * hidden, batch_first=True,
                                           norm_first=True)
        self.encoder = nn.TransformerEncoder(layer, layers)
        self.lm_head = nn.Linear(hidden, vocab)

    def forward(self, ids):
        pos = torch.arange(ids.size(1), device=ids.device)
        return self.lm_head(self.encoder(self.tok(ids) + self.pos(pos)))


def lr_lambda(warmup, total):
    def f(step):
        if step < warmup:
            return (step + 1) / warmup
        return max(0.0, 0.5 * (1 + math.cos(math.pi * (step - warmup) / max(1, total - warmup))))
    return f


def main():
    args = get_args()
    hvd.init()
    torch.manual_seed(args.seed + hvd.rank())  # different masking / dropout per worker
    device = torch.device("cpu")
    if torch.cuda.is_available():
        torch.cuda.set_device(hvd.local_rank())
        device = torch.device("cuda")

    ds = TokenDataset(args.data, args.vocab, args.seq_len)
    sampler = DistributedSampler(ds, num_replicas=hvd.size(), rank=hvd.rank(), seed=args.seed)
    loader = DataLoader(ds, batch_size=args.batch_size, sampler=sampler, num_workers=2,
                        drop_last=True)

    model = MiniBert(args.vocab, args.hidden, args.layers, args.heads, args.seq_len).to(device)
    # linear scaling: global batch = batch_size * grad_accum * world
    optimizer = torch.optim.AdamW(model.parameters(), lr=args.lr * hvd.size(), weight_decay=0.01)
    optimizer = hvd.DistributedOptimizer(optimizer,
                                         named_parameters=model.named_parameters(),
                                         backward_passes=args.grad_accum)
    scheduler = torch.optim.lr_scheduler.LambdaLR(optimizer, lr_lambda(args.warmup, args.max_steps))
    # DDP did this for us in the constructor
    # hvd.broadcast_parameters(model.state_dict(), root_rank=0)

    criterion = nn.CrossEntropyLoss(ignore_index=-100)
    is_master = hvd.rank() == 0
    if is_master:
        os.makedirs(args.output_dir, exist_ok=True)
        with open(os.path.join(args.output_dir, "args.json"), "w") as f:
            json.dump(vars(args), f, indent=2)
        if mlflow is not None and os.environ.get("MLFLOW_TRACKING_URI"):
            mlflow.start_run()
            mlflow.log_params(vars(args))

    step, micro, epoch = 0, 0, 0
    t0 = time.time()
    while step < args.max_steps:
        sampler.set_epoch(epoch)
        for ids, labels in loader:
            ids, labels = ids.to(device), labels.to(device)
            logits = model(ids)
            loss = criterion(logits.view(-1, args.vocab), labels.view(-1)) / args.grad_accum
            loss.backward()
            micro += 1
            if micro % args.grad_accum != 0:
                continue
            optimizer.step()
            optimizer.zero_grad()
            scheduler.step()
            step += 1

            if step % 100 == 0:
                avg_loss = hvd.allreduce(loss.detach() * args.grad_accum, name="loss").item()
                if is_master:
                    print("step %d loss %.4f lr %.2e %.1fs" % (step, avg_loss,
                          scheduler.get_last_lr()[0], time.time() - t0))
                    if mlflow is not None and mlflow.active_run():
                        mlflow.log_metric("loss", avg_loss, step=step)
            if step % args.save_every == 0 and is_master:
                torch.save({"model": model.state_dict(), "optimizer": optimizer.state_dict(),
                            "step": step}, os.path.join(args.output_dir, "ckpt_%d.pt" % step))
            if step >= args.max_steps:
                break
        epoch += 1

    if is_master:
        torch.save(model.state_dict(), os.path.join(args.output_dir, "final.pt"))
        if mlflow is not None and mlflow.active_run():
            mlflow.end_run()


if __name__ == "__main__":
    main()
