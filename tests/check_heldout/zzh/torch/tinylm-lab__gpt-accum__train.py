#!/usr/bin/env python
"""Pre-train a small byte-level GPT with Horovod.

    horovodrun -np 8 python train.py out_dir=runs/gpt-8x grad_accum_steps=2

Restarting the same command resumes from the newest checkpoint in out_dir.
"""
import argparse
import math
import time

import torch
import horovod.torch as hvd

from gptlab.config import TrainConfig, apply_overrides
from gptlab.model import GPT
from gptlab.data import TokenShard, ResumableBatches
from gptlab.checkpoint import save_checkpoint, restore_latest
from gptlab.distributed import setup_horovod, log0


def lr_at(step, cfg, peak):
    if step < cfg.warmup_steps:
        return peak * (step + 1) / cfg.warmup_steps
    progress = (step - cfg.warmup_steps) / max(1, cfg.max_steps - cfg.warmup_steps)
    return 0.1 * peak + 0.9 * peak * 0.5 * (1.0 + math.cos(math.pi * min(1.0, progress)))


@torch.no_grad()
def estimate_val_loss(model, batches, iters, device):
    model.eval()
    losses = torch.zeros(iters)
    for k in range(iters):
        x, y = next(batches)
        _, loss = model(x.to(device), y.to(device))
        losses[k] = loss.item()
    model.train()
    # same number of windows on every rank -> mean of the per-rank means
    return hvd.allreduce(losses.mean(), name="val_loss").item()


def main():
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("overrides", nargs="*", help="key=value pairs for TrainConfig")
    args = parser.parse_args()
    cfg = apply_overrides(TrainConfig(), args.overrides)

    device = setup_horovod()
    torch.manual_seed(cfg.seed)

    train_shard = TokenShard(cfg.data_path, cfg.block_size, hvd.rank(), hvd.size(), "train")
    val_shard = TokenShard(cfg.data_path, cfg.block_size, hvd.rank(), hvd.size(), "val")

    model = GPT(cfg).to(device)
    # tokens per optimizer step grow with the number of workers, and so does the peak lr
    peak_lr = cfg.base_lr * hvd.size()
    optimizer = torch.optim.AdamW(model.parameters(), lr=peak_lr, betas=(0.9, 0.95),
                                  weight_decay=cfg.weight_decay)

    start_step = restore_latest(cfg.out_dir, model, optimizer)
    hvd.broadcast_parameters(model.state_dict(), root_rank=0)
    hvd.broadcast_optimizer_state(optimizer, root_rank=0)

    optimizer = hvd.DistributedOptimizer(
        optimizer,
        named_parameters=model.named_parameters(),
        compression=hvd.Compression.fp16 if cfg.fp16_allreduce else hvd.Compression.none,
        backward_passes_per_step=cfg.grad_accum_steps,
    )

    train_iter = ResumableBatches(train_shard, cfg.micro_batch_size, cfg.seed,
                                  start_step * cfg.grad_accum_steps)
    val_iter = ResumableBatches(val_shard, cfg.micro_batch_size, cfg.seed + 1)
    tokens_per_step = cfg.micro_batch_size * cfg.block_size * cfg.grad_accum_steps * hvd.size()
    log0(f"world={hvd.size()} tokens/step={tokens_per_step} start_step={start_step}")

    model.train()
    t0 = time.time()
    for step in range(start_step, cfg.max_steps):
        lr = lr_at(step, cfg, peak_lr)
        for group in optimizer.param_groups:
            group["lr"] = lr
        optimizer.zero_grad()
        for _ in range(cfg.grad_accum_steps):
            x, y = next(train_iter)
            _, loss = model(x.to(device), y.to(device))
            (loss / cfg.grad_accum_steps).backward()
        # wait for the averaged gradients before clipping them
        optimizer.synchronize()
        torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
        with optimizer.skip_synchronize():
            optimizer.step()

        if step % 20 == 0:
            log0(f"step {step} loss {loss.item():.4f} lr {lr:.2e} ({time.time() - t0:.1f}s)")
            t0 = time.time()
        if (step + 1) % cfg.eval_interval == 0 or step + 1 == cfg.max_steps:
            val_loss = estimate_val_loss(model, val_iter, cfg.eval_iters, device)
            log0(f"step {step + 1}: val_loss {val_loss:.4f}")
            save_checkpoint(cfg.out_dir, step + 1, model, optimizer)


if __name__ == "__main__":
    main()
