#!/usr/bin/env python
"""Joint intent detection + slot filling, data-parallel with Horovod.

    horovodrun -np 8 -H host1:4,host2:4 python train.py --config configs/atis.json --fp16
"""
import argparse
import logging
import math
import os

import torch
import torch.nn.functional as F
import horovod.torch as hvd

from mtl.config import TrainConfig
from mtl.data import build_loaders
from mtl.dist import global_mean, is_root, setup_horovod
from mtl.model import MultiTaskEncoder

log = logging.getLogger("mtl")


def parse_args():
    p = argparse.ArgumentParser(description=__doc__)
    p.add_argument("--config", default=None, help="json file overriding TrainConfig fields")
    p.add_argument("--data-dir", default="data/atis")
    p.add_argument("--out-dir", default="runs/mtl")
    p.add_argument("--resume", action="store_true")
    p.add_argument("--fp16", action="store_true", help="autocast + GradScaler, fp16 allreduce")
    return p.parse_args()


def lr_at(step, total_steps, peak, warmup):
    if step < warmup:
        return peak * (step + 1) / warmup
    progress = (step - warmup) / max(1, total_steps - warmup)
    return peak * 0.5 * (1.0 + math.cos(math.pi * min(1.0, progress)))


def train_one_epoch(model, loader, optimizer, scaler, cfg, device, state):
    model.train()
    optimizer.zero_grad()
    usable = len(loader) // cfg.accum_steps * cfg.accum_steps
    running, n_updates = 0.0, 0
    for i, (tokens, intent, slots) in enumerate(loader):
        if i >= usable:
            break
        tokens, intent, slots = tokens.to(device), intent.to(device), slots.to(device)
        with torch.autocast(device_type=device.type, enabled=scaler.is_enabled()):
            intent_logits, slot_logits = model(tokens)
            l_intent = F.cross_entropy(intent_logits, intent)
            l_slot = F.cross_entropy(slot_logits.flatten(0, 1), slots.flatten(), ignore_index=-100)
            loss = cfg.intent_weight * l_intent + cfg.slot_weight * l_slot
        scaler.scale(loss / cfg.accum_steps).backward()
        if (i + 1) % cfg.accum_steps:
            continue

        for group in optimizer.param_groups:
            group["lr"] = lr_at(state["step"], state["total_steps"], state["peak_lr"], cfg.warmup_steps)
        optimizer.synchronize()
        scaler.unscale_(optimizer)
        torch.nn.utils.clip_grad_norm_(model.parameters(), cfg.clip_norm)
        with optimizer.skip_synchronize():
            scaler.step(optimizer)
        scaler.update()
        optimizer.zero_grad()

        state["step"] += 1
        running += loss.item()
        n_updates += 1
        if is_root() and state["step"] % 50 == 0:
            log.info("step %d  loss %.4f (intent %.4f slot %.4f)  lr %.2e", state["step"],
                     loss.item(), l_intent.item(), l_slot.item(), optimizer.param_groups[0]["lr"])
    return running / max(1, n_updates)


@torch.no_grad()
def evaluate(model, loader, device):
    model.eval()
    counts = torch.zeros(4, dtype=torch.float64)
    for tokens, intent, slots in loader:
        tokens, intent, slots = tokens.to(device), intent.to(device), slots.to(device)
        intent_logits, slot_logits = model(tokens)
        mask = slots != -100
        counts[0] += (intent_logits.argmax(-1) == intent).sum().item()
        counts[1] += intent.numel()
        counts[2] += ((slot_logits.argmax(-1) == slots) & mask).sum().item()
        counts[3] += mask.sum().item()
    counts = hvd.allreduce(counts, op=hvd.Sum, name="eval_counts")
    return (counts[0] / counts[1]).item(), (counts[2] / counts[3]).item()


def main():
    args = parse_args()
    cfg = TrainConfig.from_json(args.config) if args.config else TrainConfig()
    device = setup_horovod()
    logging.basicConfig(level=logging.INFO if is_root() else logging.WARNING,
                        format="%(asctime)s %(levelname)s %(message)s")
    torch.manual_seed(cfg.seed)

    train_loader, val_loader, train_sampler = build_loaders(args.data_dir, cfg)
    model = MultiTaskEncoder(cfg.vocab_size, cfg.num_intents, cfg.num_slots, dim=cfg.hidden).to(device)

    peak_lr = cfg.lr * hvd.size()
    optimizer = torch.optim.AdamW(model.parameters(), lr=peak_lr, weight_decay=cfg.weight_decay)
    optimizer = hvd.DistributedOptimizer(
        optimizer,
        named_parameters=model.named_parameters(),
        backward_passes_per_step=cfg.accum_steps,
        compression=hvd.Compression.fp16 if args.fp16 else hvd.Compression.none,
    )
    scaler = torch.amp.GradScaler("cuda", enabled=args.fp16 and device.type == "cuda")

    ckpt_path = os.path.join(args.out_dir, "last.pt")
    start_epoch, step = 0, 0
    if args.resume and is_root() and os.path.exists(ckpt_path):
        ckpt = torch.load(ckpt_path, map_location="cpu")
        model.load_state_dict(ckpt["model"])
        optimizer.load_state_dict(ckpt["optimizer"])
        scaler.load_state_dict(ckpt["scaler"])
        start_epoch, step = ckpt["epoch"] + 1, ckpt["step"]
        log.info("resumed from %s (epoch %d)", ckpt_path, ckpt["epoch"])
    start_epoch, step = hvd.broadcast_object((start_epoch, step), root_rank=0, name="resume_meta")
    hvd.broadcast_parameters(model.state_dict(), root_rank=0)
    hvd.broadcast_optimizer_state(optimizer, root_rank=0)

    state = {"step": step, "peak_lr": peak_lr,
             "total_steps": cfg.epochs * (len(train_loader) // cfg.accum_steps)}
    best = 0.0
    for epoch in range(start_epoch, cfg.epochs):
        train_sampler.set_epoch(epoch)
        train_loss = global_mean(train_one_epoch(model, train_loader, optimizer, scaler, cfg, device, state),
                                 name="train_loss")
        intent_acc, slot_acc = evaluate(model, val_loader, device)
        if is_root():
            log.info("epoch %d  train_loss %.4f  intent_acc %.4f  slot_acc %.4f",
                     epoch, train_loss, intent_acc, slot_acc)
            os.makedirs(args.out_dir, exist_ok=True)
            torch.save({"model": model.state_dict(), "optimizer": optimizer.state_dict(),
                        "scaler": scaler.state_dict(), "epoch": epoch, "step": state["step"],
                        "config": cfg.to_dict()}, ckpt_path)
            if intent_acc + slot_acc > best:
                best = intent_acc + slot_acc
                torch.save(model.state_dict(), os.path.join(args.out_dir, "best_model.pt"))


if __name__ == "__main__":
    main()
