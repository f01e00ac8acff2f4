"""U-Net for cell segmentation, Horovod data parallel (Bridges-2 GPU partition).

    sbatch jobs/train_2nodes.sh   # 2 x 8 V100, mpirun -np 16 python main.py --config configs/bridges2.yaml
"""
import argparse

import torch

import horovod.torch as hvd

from seg.ckpt import load_checkpoint, save_checkpoint
from seg.config import Config
from seg.data import build_loaders
from seg.engine import evaluate, train_one_epoch
from seg.unet import UNet


def parse():
    p = argparse.ArgumentParser()
    p.add_argument("--data-root", default="/ocean/projects/cis220071p/shared/cells")
    p.add_argument("--epochs", type=int, default=50)
    p.add_argument("--batch-size", type=int, default=8)
    p.add_argument("--base-lr", type=float, default=1e-3)
    p.add_argument("--out", default="runs/unet")
    p.add_argument("--resume", default="")
    return p.parse_args()


def main():
    args = parse()
    hvd.init()
    torch.cuda.set_device(hvd.local_rank())
    cfg = Config.from_namespace(args)

    train_loader, val_loader, train_sampler = build_loaders(cfg)
    model = UNet(in_ch=1, n_classes=2).cuda()
    optimizer = torch.optim.Adam(model.parameters(), lr=cfg.lr)

    start_epoch, best = 0, 0.0
    if cfg.resume and hvd.rank() == 0:
        start_epoch, best = load_checkpoint(cfg.resume, model, optimizer)
    start_epoch = hvd.broadcast_object(start_epoch, root_rank=0, name="start_epoch")
    best = hvd.broadcast_object(best, root_rank=0, name="best")
    hvd.broadcast_parameters(model.state_dict(), root_rank=0)
    hvd.broadcast_optimizer_state(optimizer, root_rank=0)

    optimizer = hvd.DistributedOptimizer(optimizer, named_parameters=model.named_parameters())

    for epoch in range(start_epoch, cfg.epochs):
        train_sampler.set_epoch(epoch)
        train_one_epoch(model, optimizer, train_loader, epoch)
        dice = evaluate(model, val_loader)
        is_best = dice > best
        best = max(dice, best)
        save_checkpoint({"epoch": epoch + 1, "model": model.state_dict(),
                         "optimizer": optimizer.state_dict(), "best": best},
                        cfg.out, is_best)
        if hvd.rank() == 0:
            print(f"epoch {epoch}: val dice {dice:.4f} (best {best:.4f})", flush=True)


if __name__ == "__main__":
    main()
