#!/usr/bin/env python
"""Pretrain a tiny GPT on token shards with Horovod.

    horovodrun -np 8 python train.py --config configs/nano.yaml lr=3e-4 max_steps=5000
"""
import argparse
import math
import time

import horovod.torch as hvd
import torch
from torch.utils.data import DataLoader

from nanoshards.ckpt import restore_and_sync, save_checkpoint
from nanoshards.config import load_config
from nanoshards.data import StridedIndex, TokenShards
from nanoshards.model import TinyGPT


def lr_lambda(cfg):
    def fn(step):
        if step < cfg.warmup_steps:
            return (step + 1) / cfg.warmup_steps
        progress = min(1.0, (step - cfg.warmup_steps) / max(1, cfg.max_steps - cfg.warmup_steps))
        floor = cfg.min_lr / cfg.lr
        return floor + (1 - floor) * 0.5 * (1 + math.cos(math.pi * progress))
    return fn


@torch.no_grad()
def evaluate(model, loader, device):
    model.eval()
    loss_sum = torch.zeros(1, dtype=torch.float64)
    n_tok = torch.zeros(1, dtype=torch.float64)
    for x, y in loader:
        x, y = x.to(device), y.to(device)
        _, loss = model(x, y)
        loss_sum += loss.item() * y.numel()
        n_tok += y.numel()
    loss_sum = hvd.allreduce(loss_sum, op=hvd.Sum, name="val_loss_sum")
    n_tok = hvd.allreduce(n_tok, op=hvd.Sum, name="val_tokens")
    model.train()
    mean = (loss_sum / n_tok).item()
    return mean, math.exp(mean)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--config", default=None)
    ap.add_argument("overrides", nargs="*", help="key=value pairs applied on top of the YAML")
    args = ap.parse_args()

    hvd.init()
    cfg = load_config(args.config, args.overrides)
    torch.manual_seed(cfg.seed)
    if torch.cuda.is_available():
        torch.cuda.set_device(hvd.local_rank())
        device = torch.device("cuda", hvd.local_rank())
    else:
        device = torch.device("cpu")

    micro_bs = cfg.global_batch // (hvd.size() * cfg.grad_accum)
    assert micro_bs > 0, "global_batch too small for this many ranks"

    train_set = TokenShards(cfg.data_dir, cfg.seq_len)
    val_set = TokenShards(cfg.val_dir, cfg.seq_len)
    train_idx = StridedIndex(len(train_set), hvd.rank(), hvd.size(), seed=cfg.seed)
    val_idx = StridedIndex(len(val_set), hvd.rank(), hvd.size(), shuffle=False)
    train_loader = DataLoader(train_set, batch_size=micro_bs, sampler=train_idx, drop_last=True)
    val_loader = DataLoader(val_set, batch_size=micro_bs, sampler=val_idx)

    model = TinyGPT(cfg.vocab_size, cfg.seq_len, cfg.d_model, cfg.n_layer, cfg.n_head).to(device)
    optimizer = torch.optim.AdamW(model.parameters(), lr=cfg.lr, betas=(0.9, 0.95),
                                  weight_decay=cfg.weight_decay)
    optimizer = hvd.DistributedOptimizer(optimizer, named_parameters=model.named_parameters(),
                                         backward_passes_per_step=cfg.grad_accum)
    scheduler = torch.optim.lr_scheduler.LambdaLR(optimizer, lr_lambda(cfg))
    step = restore_and_sync(cfg.out_dir, model, optimizer, scheduler)

    epoch, micro = 0, 0
    t0 = time.time()
    while step < cfg.max_steps:
        train_idx.set_epoch(epoch)
        for x, y in train_loader:
            x, y = x.to(device), y.to(device)
            _, loss = model(x, y)
            (loss / cfg.grad_accum).backward()
            micro += 1
            if micro % cfg.grad_accum:
                continue
            torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
            optimizer.step()
            optimizer.zero_grad()
            scheduler.step()
            step += 1
            if hvd.rank() == 0 and step % 20 == 0:
                print(f"step {step} loss {loss.item():.4f} lr {scheduler.get_last_lr()[0]:.2e} "
                      f"{time.time() - t0:.1f}s", flush=True)
            if step % cfg.eval_every == 0:
                val_loss, ppl = evaluate(model, val_loader, device)
                if hvd.rank() == 0:
                    print(f"step {step} val_loss {val_loss:.4f} ppl {ppl:.2f}", flush=True)
            if step % cfg.save_every == 0:
                save_checkpoint(cfg.out_dir, step, model, optimizer, scheduler)
            if step >= cfg.max_steps:
                break
        epoch += 1
    save_checkpoint(cfg.out_dir, step, model, optimizer, scheduler)


if __name__ == "__main__":
    main()
