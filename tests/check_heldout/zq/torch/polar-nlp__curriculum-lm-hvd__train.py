"""Curriculum training of a small LSTM language model: short -> medium -> long sequences.

Stages, data paths and hyper-parameters live in configs/curriculum.yaml.
Launch with:  horovodrun -np 4 python train.py [--config configs/curriculum.yaml]
"""
import argparse
import math
import os
import time

import torch
import torch.nn as nn
import horovod.torch as hvd

from curric import dist
from curric.config import load_config
from curric.data import load_tokens, make_loader
from curric.model import LSTMLanguageModel


def run_stage(stage, model, optimizer, cfg, device, global_step):
    tokens = load_tokens(stage.data, stage.seq_len)
    n_val = max(1, int(len(tokens) * cfg.train.val_fraction))
    train_loader = make_loader(tokens[n_val:], cfg.train.batch_size, shuffle=True, seed=cfg.train.seed)
    val_loader = make_loader(tokens[:n_val], cfg.train.batch_size, shuffle=False)

    for group in optimizer.param_groups:
        group["lr"] = stage.lr
    loss_fn = nn.CrossEntropyLoss()

    for epoch in range(stage.epochs):
        model.train()
        train_loader.sampler.set_epoch(epoch)
        t0 = time.time()
        for inputs, targets in train_loader:
            inputs, targets = inputs.to(device), targets.to(device)
            logits = model(inputs)
            loss = loss_fn(logits.reshape(-1, logits.size(-1)), targets.reshape(-1))
            optimizer.zero_grad()
            loss.backward()
            optimizer.synchronize()
            nn.utils.clip_grad_norm_(model.parameters(), cfg.train.grad_clip)
            with optimizer.skip_synchronize():
                optimizer.step()
            global_step += 1
            if dist.is_main() and global_step % cfg.train.log_every == 0:
                print(f"[{stage.name}] step {global_step} loss {loss.item():.3f}", flush=True)

        val_loss = evaluate(model, val_loader, loss_fn, device)
        if dist.is_main():
            print(f"[{stage.name}] epoch {epoch} val loss {val_loss:.3f} "
                  f"ppl {math.exp(min(val_loss, 20)):.1f} ({time.time() - t0:.0f}s)", flush=True)
    return global_step


@torch.no_grad()
def evaluate(model, loader, loss_fn, device):
    model.eval()
    total, count = 0.0, 0
    for inputs, targets in loader:
        inputs, targets = inputs.to(device), targets.to(device)
        logits = model(inputs)
        total += loss_fn(logits.reshape(-1, logits.size(-1)), targets.reshape(-1)).item() * targets.numel()
        count += targets.numel()
    return dist.global_mean(total, count, name="val_loss")


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--config", default="configs/curriculum.yaml")
    parser.add_argument("--only-stage", default=None, help="run a single stage by name")
    args = parser.parse_args()

    cfg = load_config(args.config)
    device = dist.setup()
    torch.manual_seed(cfg.train.seed)

    model = LSTMLanguageModel(**cfg.model).to(device)
    optimizer = torch.optim.Adam(model.parameters(), lr=cfg.stages[0].lr)
    optimizer = hvd.DistributedOptimizer(optimizer, named_parameters=model.named_parameters())
    hvd.broadcast_parameters(model.state_dict(), root_rank=0)
    hvd.broadcast_optimizer_state(optimizer, root_rank=0)

    step = 0
    for stage in cfg.stages:
        if args.only_stage and stage.name != args.only_stage:
            continue
        step = run_stage(stage, model, optimizer, cfg, device, step)
        if dist.is_main():
            os.makedirs(cfg.train.ckpt_dir, exist_ok=True)
            torch.save({"stage": stage.name, "step": step, "model": model.state_dict()},
                       os.path.join(cfg.train.ckpt_dir, f"lm_{stage.name}.pt"))


if __name__ == "__main__":
    main()
