import os

import torch
from torch.utils.data import DataLoader
from torch.utils.data.distributed import DistributedSampler
import horovod.torch as hvd

from defseg.options import get_options
from defseg.dataset import DefectDataset
from defseg.net import DefectUNet
from defseg.optim import build_optimizers, sync_initial_state
from defseg.engine import train_one_epoch, validate


def main():
    opts = get_options()
    hvd.init()
    if torch.cuda.is_available():
        torch.cuda.set_device(opts.local_rank)
        device = torch.device("cuda", opts.local_rank)
    else:
        device = torch.device("cpu")

    train_set = DefectDataset(opts.data, "train", opts.img_size, train=True)
    val_set = DefectDataset(opts.data, "val", opts.img_size, train=False)
    train_sampler = DistributedSampler(train_set, num_replicas=hvd.size(), rank=hvd.rank(), shuffle=True)
    val_sampler = DistributedSampler(val_set, num_replicas=hvd.size(), rank=hvd.rank(), shuffle=False)
    train_loader = DataLoader(train_set, batch_size=opts.batch_size, sampler=train_sampler,
                              num_workers=opts.workers, drop_last=True)
    val_loader = DataLoader(val_set, batch_size=opts.batch_size, sampler=val_sampler, num_workers=opts.workers)

    model = DefectUNet().to(device)
    optimizers = build_optimizers(model, opts)
    sync_initial_state(model, optimizers)

    best_iou = 0.0
    for epoch in range(opts.epochs):
        train_sampler.set_epoch(epoch)
        train_one_epoch(model, train_loader, optimizers, device)
        iou = validate(model, val_loader, device)
        if hvd.rank() == 0:
            print(f"[{epoch + 1}/{opts.epochs}] val IoU {iou:.4f}")
            os.makedirs(opts.out, exist_ok=True)
            if iou > best_iou:
                best_iou = iou
                torch.save({"epoch": epoch, "model": model.state_dict()}, os.path.join(opts.out, "best.pth"))
            torch.save({"epoch": epoch, "model": model.state_dict(),
                        "optimizers": [o.state_dict() for o in optimizers]},
                       os.path.join(opts.out, "latest.pth"))


if __name__ == "__main__":
    main()
