"""Train the 3D U-Net on N GPUs with Horovod.

    horovodrun -np 8 -H node1:4,node2:4 python main.py --config configs/heart.yaml
"""
import argparse
import logging
import sys

import torch
import horovod.torch as hvd

from seg.config import load_config
from seg.data import build_train_loader, build_val_loader
from seg.engine import UNet3D, train_one_epoch, evaluate
from seg.checkpoint import save_checkpoint, load_checkpoint


def parse_args(argv=None):
    p = argparse.ArgumentParser()
    p.add_argument("--config", default=None)
    p.add_argument("--epochs", type=int)
    p.add_argument("--batch-size", dest="batch_size", type=int)
    p.add_argument("--resume")
    p.add_argument("--no-amp", dest="amp", action="store_false", default=None)
    return p.parse_args(argv)


def main(argv=None):
    args = parse_args(argv)
    cfg = load_config(args.config, epochs=args.epochs, batch_size=args.batch_size,
                      resume=args.resume, amp=args.amp)

    hvd.init()
    logging.basicConfig(level=logging.INFO if hvd.rank() == 0 else logging.WARNING,
                        format="[%(asctime)s r{}] %(message)s".format(hvd.rank()))
    log = logging.getLogger("main")

    if torch.cuda.is_available():
        torch.cuda.set_device(hvd.local_rank())
        device = torch.device("cuda", hvd.local_rank())
    else:
        device = torch.device("cpu")
        cfg.amp = False
    torch.manual_seed(cfg.seed)

    train_loader, train_sampler = build_train_loader(cfg)
    val_loader = build_val_loader(cfg)

    model = UNet3D(ncls=cfg.num_classes).to(device)
    # linear scaling rule relative to the reference total batch
    lr = cfg.base_lr * cfg.batch_size * hvd.size() / cfg.ref_batch
    optimizer = torch.optim.AdamW(model.parameters(), lr=lr, weight_decay=cfg.weight_decay)
    scaler = torch.cuda.amp.GradScaler(enabled=cfg.amp)

    start_epoch, best = 0, 0.0
    if cfg.resume:
        start_epoch, best = load_checkpoint(cfg.resume, model, optimizer, scaler)
        log.info("resumed from %s at epoch %d", cfg.resume, start_epoch)

    optimizer = hvd.DistributedOptimizer(optimizer, named_parameters=model.named_parameters(),
                                         compression=hvd.Compression.fp16 if cfg.amp else hvd.Compression.none)
    hvd.broadcast_parameters(model.state_dict(), root_rank=0)
    hvd.broadcast_optimizer_state(optimizer, root_rank=0)

    for epoch in range(start_epoch, cfg.epochs):
        train_sampler.set_epoch(epoch)
        loss = train_one_epoch(model, train_loader, optimizer, scaler, device, cfg.amp)
        log.info("epoch %d train loss %.4f lr %.2e", epoch, loss, lr)
        is_best = False
        if (epoch + 1) % cfg.val_every == 0:
            dice = evaluate(model, val_loader, device)
            log.info("epoch %d val dice %.4f", epoch, dice)
            is_best, best = dice > best, max(dice, best)
        save_checkpoint({"epoch": epoch, "model": model.state_dict(), "optimizer": optimizer.state_dict(),
                         "scaler": scaler.state_dict(), "best": best}, cfg.out_dir, is_best)
    return best


if __name__ == "__main__":
    sys.exit(0 if main() is not None else 1)
