"""CropFormer: crop-type classification from Sentinel-2 parcel time series.

Multi-GPU training with Horovod:
    horovodrun -np 4 python main.py --data_path /scratch/s2parcels --model cropformer_small
"""
import argparse
import datetime
import json
import os
import time

import torch
import torch.nn as nn
from torch.utils.data import DataLoader
from torch.utils.data.distributed import DistributedSampler
from torch.utils.tensorboard import SummaryWriter
import horovod.torch as hvd

from datasets import ParcelTimeSeries
from engine import evaluate, train_one_epoch
from models import create_model
from utils import dist_utils


def get_args_parser():
    parser = argparse.ArgumentParser("CropFormer training", add_help=False)
    parser.add_argument("--batch_size", default=256, type=int, help="per-GPU batch size")
    parser.add_argument("--epochs", default=100, type=int)
    parser.add_argument("--model", default="cropformer_small", type=str)
    parser.add_argument("--num_classes", default=20, type=int)
    parser.add_argument("--max_len", default=64, type=int)
    parser.add_argument("--blr", type=float, default=1e-3,
                        help="base lr: absolute_lr = base_lr * total_batch_size / 256")
    parser.add_argument("--min_lr", type=float, default=1e-6)
    parser.add_argument("--weight_decay", type=float, default=0.05)
    parser.add_argument("--warmup_epochs", type=int, default=5)
    parser.add_argument("--clip_grad", type=float, default=1.0)
    parser.add_argument("--label_smoothing", type=float, default=0.1)
    parser.add_argument("--no-amp", dest="amp", action="store_false",
                        help="disable mixed precision (on by default)")
    parser.add_argument("--data_path", default="/scratch/s2parcels", type=str)
    parser.add_argument("--output_dir", default="./output_dir")
    parser.add_argument("--resume", default="")
    parser.add_argument("--num_workers", default=8, type=int)
    parser.add_argument("--print_freq", default=50, type=int)
    parser.add_argument("--seed", default=0, type=int)
    return parser


def main(args):
    dist_utils.init_distributed_mode(args)
    print(json.dumps(vars(args), indent=2))

    torch.manual_seed(args.seed + dist_utils.get_rank())

    dataset_train = ParcelTimeSeries(args.data_path, "train", args.max_len, augment=True)
    dataset_val = ParcelTimeSeries(args.data_path, "val", args.max_len)
    sampler_train = DistributedSampler(dataset_train, num_replicas=dist_utils.get_world_size(),
                                       rank=dist_utils.get_rank(), shuffle=True, seed=args.seed)
    sampler_val = DistributedSampler(dataset_val, num_replicas=dist_utils.get_world_size(),
                                     rank=dist_utils.get_rank(), shuffle=False)
    loader_train = DataLoader(dataset_train, sampler=sampler_train, batch_size=args.batch_size,
                              num_workers=args.num_workers, pin_memory=True, drop_last=True)
    loader_val = DataLoader(dataset_val, sampler=sampler_val, batch_size=args.batch_size,
                            num_workers=args.num_workers, pin_memory=True)

    model = create_model(args.model, in_channels=10, num_classes=args.num_classes)
    model.to(args.device)
    n_params = sum(p.numel() for p in model.parameters() if p.requires_grad)
    print(f"model {args.model}: {n_params / 1e6:.2f}M params")

    eff_batch_size = args.batch_size * dist_utils.get_world_size()
    args.lr = args.blr * eff_batch_size / 256
    print(f"base lr {args.blr:.2e}, effective batch {eff_batch_size}, actual lr {args.lr:.2e}")

    decay, no_decay = [], []
    for name, p in model.named_parameters():
        (no_decay if p.ndim == 1 or name.endswith("cls_token") else decay).append(p)
    optimizer = torch.optim.AdamW([
        {"params": decay, "weight_decay": args.weight_decay},
        {"params": no_decay, "weight_decay": 0.0},
    ], lr=args.lr, betas=(0.9, 0.95))
    optimizer = hvd.DistributedOptimizer(optimizer, named_parameters=model.named_parameters())
    scaler = torch.cuda.amp.GradScaler(enabled=args.amp)
    criterion = nn.CrossEntropyLoss(label_smoothing=args.label_smoothing)

    args.start_epoch = 0
    if args.resume:
        ckpt = torch.load(args.resume, map_location="cpu")
        model.load_state_dict(ckpt["model"])
        optimizer.load_state_dict(ckpt["optimizer"])
        scaler.load_state_dict(ckpt["scaler"])
        args.start_epoch = ckpt["epoch"] + 1
        print(f"resumed from {args.resume} (epoch {ckpt['epoch']})")
    hvd.broadcast_parameters(model.state_dict(), root_rank=0)
    hvd.broadcast_optimizer_state(optimizer, root_rank=0)

    writer = None
    if dist_utils.is_main_process():
        os.makedirs(args.output_dir, exist_ok=True)
        writer = SummaryWriter(log_dir=os.path.join(args.output_dir, "tb"))

    best_acc = 0.0
    start_time = time.time()
    for epoch in range(args.start_epoch, args.epochs):
        sampler_train.set_epoch(epoch)
        train_one_epoch(model, criterion, loader_train, optimizer, scaler, epoch, args, writer)
        stats = evaluate(model, criterion, loader_val, args)
        print(f"Epoch {epoch}: val loss {stats['loss']:.4f} acc {100 * stats['acc']:.2f}%")
        if writer is not None:
            writer.add_scalar("val/loss", stats["loss"], epoch)
            writer.add_scalar("val/acc", stats["acc"], epoch)

        state = {"model": model.state_dict(), "optimizer": optimizer.state_dict(),
                 "scaler": scaler.state_dict(), "epoch": epoch, "args": vars(args)}
        dist_utils.save_on_master(state, os.path.join(args.output_dir, "checkpoint.pth"))
        if stats["acc"] > best_acc:
            best_acc = stats["acc"]
            dist_utils.save_on_master(state, os.path.join(args.output_dir, "checkpoint_best.pth"))

    total = str(datetime.timedelta(seconds=int(time.time() - start_time)))
    print(f"Training time {total}, best val acc {100 * best_acc:.2f}%")


if __name__ == "__main__":
    args = get_args_parser().parse_args()
    main(args)
