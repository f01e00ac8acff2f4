"""CIFAR-10 training on the lab cluster (Slurm + Horovod).

    sbatch jobs/cifar_4n.sbatch           # srun --mpi=pmix python train.py -c configs/resnet18.yaml
"""
import argparse
import os

import torch
import horovod.torch as hvd

from hpclab.config import load_config
from hpclab.slurm import SlurmEnv, device_for_rank
from hpclab.data import build_loaders
from hpclab.engine import Trainer
from hpclab.log import get_logger


def build_model(name, num_classes):
    import torchvision
    return getattr(torchvision.models, name)(num_classes=num_classes)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("-c", "--config", default="configs/resnet18.yaml")
    parser.add_argument("--resume", action="store_true")
    parser.add_argument("overrides", nargs="*", help="key=value pairs")
    cli = parser.parse_args()

    hvd.init()
    env = SlurmEnv.from_environ()
    cfg = load_config(cli.config, cli.overrides)
    log = get_logger(env.rank, cfg.log_dir)

    device = device_for_rank()
    torch.set_num_threads(env.cpus_per_task)
    log.info("host %s rank %d/%d local %d device %s", env.node, env.rank, env.world,
             env.local_rank, device)

    train_loader, val_loader, sampler = build_loaders(cfg, hvd.rank(), hvd.size())
    model = build_model(cfg.arch, cfg.num_classes).to(device)

    lr = cfg.lr * hvd.size()
    optimizer = torch.optim.SGD(model.parameters(), lr=lr, momentum=cfg.momentum,
                                weight_decay=cfg.weight_decay)
    scheduler = torch.optim.lr_scheduler.CosineAnnealingLR(optimizer, T_max=cfg.epochs)

    trainer = Trainer(model, optimizer, device, amp=cfg.amp, clip=cfg.clip_grad)

    ckpt_path = os.path.join(cfg.ckpt_dir, f"{cfg.arch}_last.pt")
    start_epoch = 0
    if cli.resume and os.path.exists(ckpt_path):
        state = torch.load(ckpt_path, map_location="cpu")
        model.load_state_dict(state["model"])
        trainer.optimizer.load_state_dict(state["optimizer"])
        scheduler.load_state_dict(state["scheduler"])
        start_epoch = state["epoch"] + 1
    trainer.sync(root_rank=0)

    best = 0.0
    for epoch in range(start_epoch, cfg.epochs):
        sampler.set_epoch(epoch)
        train_loss = trainer.train_epoch(train_loader)
        val_loss, val_acc = trainer.validate(val_loader)
        scheduler.step()
        if env.rank == 0:
            log.info("epoch %d train_loss %.4f val_loss %.4f val_acc %.4f lr %.5f",
                     epoch, train_loss, val_loss, val_acc, scheduler.get_last_lr()[0])
        # one writer per node: the scratch filesystem is node-local on the old partition
        if env.local_rank == 0:
            os.makedirs(cfg.ckpt_dir, exist_ok=True)
            state = {"epoch": epoch, "model": model.state_dict(),
                     "optimizer": trainer.optimizer.state_dict(), "scheduler": scheduler.state_dict()}
            torch.save(state, ckpt_path)
            if val_acc > best:
                best = val_acc
                torch.save(state, os.path.join(cfg.ckpt_dir, f"{cfg.arch}_best.pt"))


if __name__ == "__main__":
    main()
