"""DeepLabV3 on aerial tiles, multi-GPU with Horovod.

    horovodrun -np 4 python train.py --data-path data/potsdam --epochs 30 -b 4 --amp
    horovodrun -np 4 python train.py --resume runs/exp1/checkpoint.pth --test-only
"""
import datetime
import os
import time

import torch
import torch.utils.data
import torchvision
import horovod.torch as hvd

from seg import utils
from seg.data import AerialTiles
from seg.engine import train_one_epoch, evaluate


def get_args_parser():
    import argparse

    p = argparse.ArgumentParser(description="DeepLabV3 segmentation training (Horovod)")
    p.add_argument("--data-path", default="data/potsdam")
    p.add_argument("--model", default="deeplabv3_resnet50")
    p.add_argument("--num-classes", default=6, type=int)
    p.add_argument("--aux-loss", action="store_true")
    p.add_argument("--device", default="cuda")
    p.add_argument("-b", "--batch-size", default=4, type=int, help="per worker")
    p.add_argument("--epochs", default=30, type=int)
    p.add_argument("-j", "--workers", default=8, type=int)
    p.add_argument("--lr", default=0.01, type=float, help="lr for one worker, scaled by hvd.size()")
    p.add_argument("--momentum", default=0.9, type=float)
    p.add_argument("--wd", default=1e-4, type=float, dest="weight_decay")
    p.add_argument("--lr-warmup-epochs", default=1, type=int)
    p.add_argument("--crop-size", default=480, type=int)
    p.add_argument("--print-freq", default=10, type=int)
    p.add_argument("--output-dir", default="runs/exp1")
    p.add_argument("--resume", default="")
    p.add_argument("--start-epoch", default=0, type=int)
    p.add_argument("--test-only", action="store_true")
    p.add_argument("--amp", action="store_true")
    return p


def build_scheduler(optimizer, iters_per_epoch, args):
    total_iters = iters_per_epoch * (args.epochs - args.lr_warmup_epochs)
    warmup_iters = iters_per_epoch * args.lr_warmup_epochs
    main_lr = torch.optim.lr_scheduler.LambdaLR(optimizer, lambda x: (1 - x / max(total_iters, 1)) ** 0.9)
    if warmup_iters == 0:
        return main_lr
    warmup = torch.optim.lr_scheduler.LinearLR(optimizer, start_factor=0.01, total_iters=warmup_iters)
    return torch.optim.lr_scheduler.SequentialLR(optimizer, schedulers=[warmup, main_lr], milestones=[warmup_iters])


def main(args):
    utils.init_distributed_mode(args)
    utils.mkdir(args.output_dir)
    device = torch.device(args.device)

    dataset = AerialTiles(args.data_path, "train", crop_size=args.crop_size)
    dataset_test = AerialTiles(args.data_path, "val")
    train_sampler = torch.utils.data.distributed.DistributedSampler(dataset, num_replicas=hvd.size(), rank=hvd.rank())
    test_sampler = torch.utils.data.distributed.DistributedSampler(dataset_test, num_replicas=hvd.size(), rank=hvd.rank(), shuffle=False)
    data_loader = torch.utils.data.DataLoader(
        dataset, batch_size=args.batch_size, sampler=train_sampler, num_workers=args.workers,
        collate_fn=utils.collate_fn, drop_last=True,
    )
    data_loader_test = torch.utils.data.DataLoader(
        dataset_test, batch_size=1, sampler=test_sampler, num_workers=args.workers, collate_fn=utils.collate_fn
    )

    model = torchvision.models.get_model(args.model, weights=None, weights_backbone=None, num_classes=args.num_classes, aux_loss=args.aux_loss)
    model.to(device)

    params_to_optimize = [
        {"params": [p for p in model.backbone.parameters() if p.requires_grad]},
        {"params": [p for p in model.classifier.parameters() if p.requires_grad]},
    ]
    if args.aux_loss:
        params_to_optimize.append({"params": [p for p in model.aux_classifier.parameters() if p.requires_grad], "lr": args.lr * hvd.size() * 10})
    optimizer = torch.optim.SGD(params_to_optimize, lr=args.lr * hvd.size(), momentum=args.momentum, weight_decay=args.weight_decay)
    optimizer = hvd.DistributedOptimizer(optimizer, named_parameters=model.named_parameters())
    scaler = torch.cuda.amp.GradScaler() if args.amp else None
    lr_scheduler = build_scheduler(optimizer, len(data_loader), args)

    if args.resume:
        checkpoint = torch.load(args.resume, map_location="cpu", weights_only=False)
        model.load_state_dict(checkpoint["model"], strict=not args.test_only)
        if not args.test_only:
            optimizer.load_state_dict(checkpoint["optimizer"])
            lr_scheduler.load_state_dict(checkpoint["lr_scheduler"])
            args.start_epoch = checkpoint["epoch"] + 1
    hvd.broadcast_parameters(model.state_dict(), root_rank=0)
    hvd.broadcast_optimizer_state(optimizer, root_rank=0)

    if args.test_only:
        confmat = evaluate(model, data_loader_test, device=device, num_classes=args.num_classes)
        if hvd.rank() == 0:
            print(confmat)
        return

    start_time = time.time()
    for epoch in range(args.start_epoch, args.epochs):
        train_sampler.set_epoch(epoch)
        train_one_epoch(model, optimizer, data_loader, lr_scheduler, device, epoch, args.print_freq, scaler)
        confmat = evaluate(model, data_loader_test, device=device, num_classes=args.num_classes)
        if hvd.rank() == 0:
            print(confmat)
        checkpoint = {
            "model": model.state_dict(),
            "optimizer": optimizer.state_dict(),
            "lr_scheduler": lr_scheduler.state_dict(),
            "epoch": epoch,
            "args": args,
        }
        utils.save_on_master(checkpoint, os.path.join(args.output_dir, f"model_{epoch}.pth"))
        utils.save_on_master(checkpoint, os.path.join(args.output_dir, "checkpoint.pth"))

    print(f"Training time {datetime.timedelta(seconds=int(time.time() - start_time))}")


if __name__ == "__main__":
    main(get_args_parser().parse_args())
