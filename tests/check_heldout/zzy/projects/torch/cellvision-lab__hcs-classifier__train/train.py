"""Train CellNet on plate-split cell painting crops.

horovodrun -np 4 python train.py --data /scratch/hcs/crops_512.npz --epochs 40
"""
import argparse
import os

import torch
from torch.utils.data import DataLoader
from torch.utils.data.distributed import DistributedSampler
import horovod.torch as hvd

from hcs.data import class_weights, load_crops
from hcs.models import CellNet
from hcs.trainer import Trainer
from utils import get_logger, is_main_process, setup_distributed

parser = argparse.ArgumentParser()
parser.add_argument("--data", default="/scratch/hcs/crops_512.npz")
parser.add_argument("--n-classes", type=int, default=12)
parser.add_argument("--channels", type=int, default=5)
parser.add_argument("--batch-size", type=int, default=64)
parser.add_argument("--lr", type=float, default=0.05)
parser.add_argument("--epochs", type=int, default=40)
parser.add_argument("--workers", type=int, default=4)
parser.add_argument("--no-amp", action="store_true")
parser.add_argument("--resume", default="")
parser.add_argument("--out-dir", default="checkpoints")


def main(args):
    device = setup_distributed()
    log = get_logger("hcs", is_main_process())
    train_ds, val_ds, train_labels = load_crops(args.data)
    weights = class_weights(train_labels, args.n_classes)
    log.info("train %d crops, val %d crops, class weights %s", len(train_ds), len(val_ds),
             [round(w, 2) for w in weights.tolist()])

    train_sampler = DistributedSampler(train_ds, num_replicas=hvd.size(), rank=hvd.rank())
    val_sampler = DistributedSampler(val_ds, num_replicas=hvd.size(), rank=hvd.rank(), shuffle=False)
    train_loader = DataLoader(train_ds, batch_size=args.batch_size, sampler=train_sampler,
                              num_workers=args.workers, pin_memory=True, drop_last=True)
    val_loader = DataLoader(val_ds, batch_size=args.batch_size, sampler=val_sampler,
                            num_workers=args.workers)

    model = CellNet(args.channels, args.n_classes).to(device)
    optimizer = torch.optim.SGD(model.parameters(), lr=args.lr * hvd.size(), momentum=0.9,
                                weight_decay=5e-4, nesterov=True)
    scheduler = torch.optim.lr_scheduler.CosineAnnealingLR(optimizer, T_max=args.epochs)
    trainer = Trainer(model, optimizer, scheduler, device, weights, args.out_dir,
                      amp=not args.no_amp, logger=log)
    if args.resume and os.path.exists(args.resume):
        trainer.resume(args.resume)
    trainer.sync()

    best = 0.0
    for epoch in range(trainer.start_epoch, args.epochs):
        trainer.train_epoch(train_loader, epoch)
        acc = trainer.evaluate(val_loader)
        log.info("epoch %d val_acc %.4f", epoch, acc)
        trainer.save(epoch)
        if acc > best:
            best = acc
            trainer.save(epoch, tag="best")


if __name__ == "__main__":
    main(parser.parse_args())
