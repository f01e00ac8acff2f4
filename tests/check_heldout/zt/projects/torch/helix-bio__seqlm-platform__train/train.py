"""Protein language model pre-training.

Usage: horovodrun -np 16 -hostfile hosts python train.py trainer.epochs=20 optim.lr=1e-4
"""
import logging
import math
import os
import sys

import torch
import torch.nn.functional as F
import horovod.torch as hvd

from seqlm import compose
from seqlm.data import make_loader, read_manifest
from seqlm.model import LSTMLM
from seqlm.runtime import setup_runtime

log = logging.getLogger(__name__)


def evaluate(model, loader, device):
    model.eval()
    nll, tokens = 0.0, 0
    with torch.no_grad():
        for x, y in loader:
            x, y = x.to(device), y.to(device)
            logits = model(x)
            nll += F.cross_entropy(logits.flatten(0, 1), y.flatten(), reduction="sum").item()
            tokens += y.numel()
    return nll / max(tokens, 1)


def main(argv):
    cfg = compose(os.environ.get("SEQLM_CONFIG"), argv)
    device = setup_runtime(cfg)

    shards = read_manifest(cfg["data"]["manifest"])
    train_shards = [s for s in shards if "/train/" in s]
    val_shards = [s for s in shards if "/valid/" in s]
    train_loader, train_sampler = make_loader(train_shards, cfg, train=True)
    val_loader, _ = make_loader(val_shards, cfg, train=False)

    model = LSTMLM(**cfg["model"]).to(device)
    optimizer = torch.optim.AdamW(model.parameters(), lr=cfg["optim"]["lr"] * hvd.size())
    hvd.broadcast_parameters(model.state_dict(), root_rank=0)
    hvd.broadcast_optimizer_state(optimizer, root_rank=0)
    optimizer = hvd.DistributedOptimizer(optimizer, named_parameters=model.named_parameters(),
                                         op=hvd.Average)
    use_amp = cfg["runtime"]["amp"] and device.type == "cuda"
    scaler = torch.cuda.amp.GradScaler(enabled=use_amp)

    for epoch in range(cfg["trainer"]["epochs"]):
        model.train()
        train_sampler.set_epoch(epoch)
        for step, (x, y) in enumerate(train_loader):
            x, y = x.to(device), y.to(device)
            optimizer.zero_grad()
            with torch.autocast(device_type=device.type, enabled=use_amp):
                logits = model(x)
                loss = F.cross_entropy(logits.flatten(0, 1), y.flatten())
            scaler.scale(loss).backward()
            optimizer.synchronize()
            scaler.unscale_(optimizer)
            torch.nn.utils.clip_grad_norm_(model.parameters(), cfg["optim"]["clip"])
            with optimizer.skip_synchronize():
                scaler.step(optimizer)
            scaler.update()
            if step % cfg["trainer"]["log_interval"] == 0:
                log.info("epoch %d step %d loss %.4f", epoch, step, loss.item())

        val_nll = evaluate(model, val_loader, device)
        if hvd.rank() == 0:
            log.info("epoch %d val_nll %.4f ppl %.2f", epoch, val_nll, math.exp(val_nll))
            os.makedirs(cfg["trainer"]["out_dir"], exist_ok=True)
            torch.save({"model": model.state_dict(), "epoch": epoch, "cfg": cfg},
                       os.path.join(cfg["trainer"]["out_dir"], f"seqlm_e{epoch:03d}.pt"))


if __name__ == "__main__":
    main(sys.argv[1:])
