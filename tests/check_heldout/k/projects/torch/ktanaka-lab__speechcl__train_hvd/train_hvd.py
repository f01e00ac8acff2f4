"""Contrastive pre-training of a speech encoder, launched with horovod.run.

    python train_hvd.py --num-proc 4 --data-root /scratch/librispeech_logmel
"""
import argparse
import math
import time

import horovod
import horovod.torch as hvd
import torch

from speechcl.data import make_loaders
from speechcl.metrics import Meter
from speechcl.model import SpeechEncoder, nt_xent
from speechcl.utils import save_state


def lr_at(step, base_lr, warmup, total):
    if step < warmup:
        return base_lr * (step + 1) / warmup
    progress = (step - warmup) / max(1, total - warmup)
    return 0.5 * base_lr * (1.0 + math.cos(math.pi * progress))


def train_worker(cfg):
    hvd.init()
    torch.manual_seed(cfg["seed"])
    if torch.cuda.is_available():
        torch.cuda.set_device(hvd.local_rank())
    device = torch.device("cuda" if torch.cuda.is_available() else "cpu")

    train_loader, dev_loader, train_sampler = make_loaders(cfg, hvd.rank(), hvd.size())

    encoder = SpeechEncoder(n_mels=cfg["n_mels"], dim=cfg["dim"], layers=cfg["layers"]).to(device)
    base_lr = cfg["lr"] * hvd.size()
    adam = torch.optim.Adam(encoder.parameters(), lr=base_lr, weight_decay=cfg["wd"])
    adam = hvd.DistributedOptimizer(adam, named_parameters=encoder.named_parameters())
    hvd.broadcast_parameters(encoder.state_dict(), root_rank=0)
    hvd.broadcast_optimizer_state(adam, root_rank=0)

    total_steps = cfg["epochs"] * len(train_loader)
    step = 0
    best_dev = float("inf")
    for epoch in range(cfg["epochs"]):
        train_sampler.set_epoch(epoch)
        encoder.train()
        train_loss = Meter("train_loss")
        t0 = time.time()
        for a, b in train_loader:
            a, b = a.to(device), b.to(device)
            for group in adam.param_groups:
                group["lr"] = lr_at(step, base_lr, cfg["warmup_steps"], total_steps)
            adam.zero_grad()
            loss = nt_xent(encoder(a), encoder(b), cfg["temperature"])
            loss.backward()
            adam.step()
            train_loss.update(loss.item(), a.size(0))
            step += 1

        encoder.eval()
        dev_loss = Meter("dev_loss")
        with torch.no_grad():
            for a, b in dev_loader:
                a, b = a.to(device), b.to(device)
                dev_loss.update(nt_xent(encoder(a), encoder(b), cfg["temperature"]).item(), a.size(0))
        train_avg = train_loss.sync()
        dev_avg = dev_loss.sync()
        if hvd.rank() == 0:
            print(f"epoch {epoch} train {train_avg:.4f} dev {dev_avg:.4f} "
                  f"({time.time() - t0:.0f}s)", flush=True)
        save_state(cfg["ckpt_dir"], epoch, encoder, adam, is_best=dev_avg < best_dev)
        best_dev = min(best_dev, dev_avg)
    return best_dev


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--num-proc", type=int, default=4)
    p.add_argument("--hosts", default=None, help="e.g. host1:4,host2:4")
    p.add_argument("--data-root", default="data/logmel")
    p.add_argument("--ckpt-dir", default="checkpoints/speechcl")
    p.add_argument("--epochs", type=int, default=100)
    p.add_argument("--batch-size", type=int, default=64)
    p.add_argument("--lr", type=float, default=2e-4)
    p.add_argument("--wd", type=float, default=1e-6)
    p.add_argument("--warmup-steps", type=int, default=2000)
    p.add_argument("--temperature", type=float, default=0.1)
    p.add_argument("--crop-frames", type=int, default=200)
    p.add_argument("--n-mels", type=int, default=80)
    p.add_argument("--dim", type=int, default=256)
    p.add_argument("--layers", type=int, default=6)
    p.add_argument("--workers", type=int, default=4)
    p.add_argument("--seed", type=int, default=17)
    args = p.parse_args()
    results = horovod.run(train_worker, args=(vars(args),), num_proc=args.num_proc,
                          hosts=args.hosts, use_gloo=True)
    print("best dev loss per rank:", results)


if __name__ == "__main__":
    main()
