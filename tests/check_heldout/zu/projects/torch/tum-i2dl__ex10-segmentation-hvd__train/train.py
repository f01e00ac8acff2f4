"""Exercise 10 (semantic segmentation), data-parallel version for the course cluster."""
import argparse
import os
from dataclasses import dataclass

import torch
import horovod.torch as hvd
from torch.utils.data import DataLoader

from exercise_code.dist_utils import is_root, setup_horovod
from exercise_code.networks import SegmentationNN
from exercise_code.segmentation_dataset import SegmentationData, WorkerShardSampler
from exercise_code.solver import evaluate, lr_at, train_epoch


@dataclass
class Hparams:
    data_root: str = "datasets/segmentation"
    epochs: int = 30
    batch_size: int = 16
    lr: float = 2e-3
    warmup: int = 3
    num_classes: int = 23
    amp: bool = False
    ckpt: str = "checkpoints/segnet_last.pt"
    save_every: int = 5


def get_hparams():
    hp = Hparams()
    parser = argparse.ArgumentParser()
    for name, value in vars(hp).items():
        kind = (lambda s: s.lower() in ("1", "true", "yes")) if isinstance(value, bool) else type(value)
        parser.add_argument(f"--{name}", type=kind, default=value)
    return Hparams(**vars(parser.parse_args()))


def main():
    hp = get_hparams()
    device = setup_horovod()
    torch.manual_seed(1234)

    train_set = SegmentationData(hp.data_root, "train")
    val_set = SegmentationData(hp.data_root, "val")
    sampler = WorkerShardSampler(len(train_set), hvd.size(), hvd.rank(), seed=1234)
    val_idx = list(range(hvd.rank(), len(val_set), hvd.size()))
    train_loader = DataLoader(train_set, batch_size=hp.batch_size, sampler=sampler, drop_last=True)
    val_loader = DataLoader(torch.utils.data.Subset(val_set, val_idx), batch_size=hp.batch_size)

    model = SegmentationNN(hp.num_classes).to(device)
    base_lr = hp.lr * hvd.size()
    optimizer = torch.optim.AdamW(model.parameters(), lr=base_lr, weight_decay=1e-4)
    optimizer = hvd.DistributedOptimizer(optimizer, named_parameters=model.named_parameters())
    scaler = torch.cuda.amp.GradScaler(enabled=hp.amp and device.type == "cuda")

    start_epoch = 0
    if is_root() and os.path.isfile(hp.ckpt):
        state = torch.load(hp.ckpt, map_location="cpu")
        model.load_state_dict(state["model"])
        optimizer.load_state_dict(state["optimizer"])
        start_epoch = state["epoch"] + 1
        print(f"resumed from {hp.ckpt} at epoch {start_epoch}")
    hvd.broadcast_parameters(model.state_dict(), root_rank=0)
    hvd.broadcast_optimizer_state(optimizer, root_rank=0)
    start_epoch = hvd.broadcast_object(start_epoch, root_rank=0, name="start_epoch")

    for epoch in range(start_epoch, hp.epochs):
        for group in optimizer.param_groups:
            group["lr"] = lr_at(epoch, base_lr, hp.warmup, hp.epochs)
        sampler.set_epoch(epoch)
        loss = train_epoch(model, optimizer, scaler, train_loader, device, hp.amp)
        miou = evaluate(model, val_loader, device, hp.num_classes)
        if is_root():
            print(f"epoch {epoch:3d}  loss {loss:.4f}  val mIoU {miou:.4f}")
            if (epoch + 1) % hp.save_every == 0 or epoch + 1 == hp.epochs:
                os.makedirs(os.path.dirname(hp.ckpt), exist_ok=True)
                torch.save({"epoch": epoch, "model": model.state_dict(),
                            "optimizer": optimizer.state_dict()}, hp.ckpt)


if __name__ == "__main__":
    main()
