#!/usr/bin/env python
# Wide-ResNet + EMA on CIFAR, multi-GPU with Horovod.
# Usage: horovodrun -np 4 python main.py --arch wrn-28-10 --dataset cifar100 --bs 64
import argparse
import os

import torch
import torch.backends.cudnn as cudnn
import horovod.torch as hvd

from models import build_model
from datasets import build_loaders
from engine import Trainer, ModelEMA
from utils import set_seed, save_ckpt

DEFAULTS = dict(
    data_root="./data", dataset="cifar10", arch="wrn-28-10", batch_size=128, workers=4,
    epochs=200, lr=0.1, momentum=0.9, wd=5e-4, nesterov=True, warmup_epochs=5,
    label_smoothing=0.0, clip_grad=0.0, ema_decay=0.999, log_every=100, eval_every=5,
    out_dir="./checkpoints", seed=0,
)


def get_args():
    ap = argparse.ArgumentParser()
    for k, v in DEFAULTS.items():
        flag = "--" + k.replace("_", "-")
        if isinstance(v, bool):
            ap.add_argument(flag, dest=k, type=lambda s: s.lower() in ("1", "true", "yes"), default=v)
        else:
            ap.add_argument(flag, dest=k, type=type(v), default=v)
    ap.add_argument("--bs", dest="batch_size", type=int)
    ap.add_argument("--resume", action="store_true")
    return ap.parse_args()


def main():
    args = get_args()
    cfg = vars(args)
    hvd.init()
    set_seed(cfg["seed"])
    if torch.cuda.is_available():
        torch.cuda.set_device(hvd.local_rank())
        cudnn.benchmark = True
    device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
    torch.set_num_threads(max(1, os.cpu_count() // hvd.local_size()))

    train_loader, test_loader, train_sampler = build_loaders(cfg, hvd.size(), hvd.rank())
    num_classes = 100 if cfg["dataset"] == "cifar100" else 10
    model = build_model(cfg["arch"], num_classes).to(device)

    cfg["lr"] = cfg["lr"] * hvd.size()
    steps_per_epoch = len(train_loader)
    cfg["warmup_steps"] = cfg["warmup_epochs"] * steps_per_epoch
    total_steps = cfg["epochs"] * steps_per_epoch

    optimizer = torch.optim.SGD(model.parameters(), lr=cfg["lr"], momentum=cfg["momentum"],
                                weight_decay=cfg["wd"], nesterov=cfg["nesterov"])
    ckpt_path = os.path.join(cfg["out_dir"], f"{cfg['arch']}_{cfg['dataset']}.pth")
    start_epoch, best = 0, 0.0
    if args.resume and hvd.rank() == 0 and os.path.exists(ckpt_path):
        ck = torch.load(ckpt_path, map_location="cpu")
        model.load_state_dict(ck["model"])
        optimizer.load_state_dict(ck["optimizer"])
        start_epoch, best = ck["epoch"], ck["best"]
    start_epoch, best = hvd.broadcast_object((start_epoch, best), root_rank=0, name="resume_meta")

    hvd.broadcast_parameters(model.state_dict(), root_rank=0)
    hvd.broadcast_optimizer_state(optimizer, root_rank=0)
    ema = ModelEMA(model, cfg["ema_decay"]) if cfg["ema_decay"] > 0 else None
    trainer = Trainer(model, optimizer, cfg, device, ema=ema)
    trainer.step = start_epoch * steps_per_epoch
    optimizer = hvd.DistributedOptimizer(optimizer, named_parameters=model.named_parameters())

    for epoch in range(start_epoch, cfg["epochs"]):
        train_sampler.set_epoch(epoch)
        train_loss = trainer.train_epoch(train_loader, epoch, total_steps)
        if (epoch + 1) % cfg["eval_every"] == 0 or epoch + 1 == cfg["epochs"]:
            acc = trainer.evaluate(test_loader)
            if hvd.rank() == 0:
                print(f"epoch {epoch}: train loss {train_loss:.4f} test acc (ema) {acc:.4f}")
                if acc > best:
                    best = acc
                    save_ckpt(ckpt_path, model=model.state_dict(), optimizer=optimizer.state_dict(),
                              epoch=epoch + 1, best=best)


if __name__ == "__main__":
    main()
