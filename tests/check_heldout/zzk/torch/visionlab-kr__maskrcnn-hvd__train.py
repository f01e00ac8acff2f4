r"""Mask R-CNN / Faster R-CNN training, Horovod edition.

Based on torchvision's references/detection/train.py; torch.distributed replaced by Horovod.

    horovodrun -np 8 -H node1:4,node2:4 python train.py \
        --data-path /data/nuclei --model maskrcnn_resnet50_fpn --epochs 26 --lr-steps 16 22 --amp

The learning rate follows the linear scaling rule: --base-lr is the lr for a global batch of
--base-batch images (0.02 for 16 images, the Detectron default).
"""
import datetime
import os
import time

import torch
import torch.utils.data
import torchvision
import horovod.torch as hvd

from detection import utils
from detection import transforms as T
from detection.coco_utils import get_dataset
from detection.engine import train_one_epoch, evaluate


def get_transform(train):
    if train:
        return T.Compose([T.ToTensor(), T.RandomHorizontalFlip(0.5)])
    return T.Compose([T.ToTensor()])


def get_args_parser(add_help=True):
    import argparse

    parser = argparse.ArgumentParser(description="PyTorch Detection Training (Horovod)", add_help=add_help)
    parser.add_argument("--data-path", default="/data/nuclei", type=str, help="dataset path")
    parser.add_argument("--model", default="maskrcnn_resnet50_fpn", type=str, help="model name")
    parser.add_argument("--device", default="cuda", type=str, help="device (cuda or cpu)")
    parser.add_argument("-b", "--batch-size", default=2, type=int, help="images per gpu")
    parser.add_argument("--epochs", default=26, type=int, metavar="N")
    parser.add_argument("-j", "--workers", default=4, type=int, metavar="N")
    parser.add_argument("--base-lr", default=0.02, type=float, help="lr for a global batch of --base-batch images")
    parser.add_argument("--base-batch", default=16, type=int)
    parser.add_argument("--momentum", default=0.9, type=float, metavar="M")
    parser.add_argument("--wd", "--weight-decay", default=1e-4, type=float, dest="weight_decay")
    parser.add_argument("--lr-steps", default=[16, 22], nargs="+", type=int)
    parser.add_argument("--lr-gamma", default=0.1, type=float)
    parser.add_argument("--min-size", default=800, type=int)
    parser.add_argument("--print-freq", default=20, type=int)
    parser.add_argument("--output-dir", default=".", type=str)
    parser.add_argument("--resume", default="", type=str, help="path of checkpoint")
    parser.add_argument("--start-epoch", default=0, type=int)
    parser.add_argument("--test-only", action="store_true")
    parser.add_argument("--amp", action="store_true", help="use torch.cuda.amp")
    return parser


def main(args):
    utils.init_distributed_mode(args)
    if args.output_dir:
        utils.mkdir(args.output_dir)
    print(args)

    device = torch.device(args.device)

    print("Loading data")
    dataset, num_classes = get_dataset(args.data_path, "train", get_transform(True))
    dataset_test, _ = get_dataset(args.data_path, "val", get_transform(False))

    train_sampler = torch.utils.data.distributed.DistributedSampler(dataset, num_replicas=hvd.size(), rank=hvd.rank(), shuffle=True)
    test_sampler = torch.utils.data.distributed.DistributedSampler(dataset_test, num_replicas=hvd.size(), rank=hvd.rank(), shuffle=False)
    train_batch_sampler = torch.utils.data.BatchSampler(train_sampler, args.batch_size, drop_last=True)

    data_loader = torch.utils.data.DataLoader(
        dataset, batch_sampler=train_batch_sampler, num_workers=args.workers, collate_fn=utils.collate_fn
    )
    data_loader_test = torch.utils.data.DataLoader(
        dataset_test, batch_size=1, sampler=test_sampler, num_workers=args.workers, collate_fn=utils.collate_fn
    )

    print("Creating model")
    model = torchvision.models.get_model(
        args.model, weights=None, weights_backbone=None, num_classes=num_classes, min_size=args.min_size
    )
    model.to(device)

    global_batch = args.batch_size * hvd.size()
    lr = args.base_lr * global_batch / args.base_batch
    params = [p for p in model.parameters() if p.requires_grad]
    optimizer = torch.optim.SGD(params, lr=lr, momentum=args.momentum, weight_decay=args.weight_decay)
    optimizer = hvd.DistributedOptimizer(
        optimizer, named_parameters=[(n, p) for n, p in model.named_parameters() if p.requires_grad]
    )
    scaler = torch.cuda.amp.GradScaler() if args.amp else None
    lr_scheduler = torch.optim.lr_scheduler.MultiStepLR(optimizer, milestones=args.lr_steps, gamma=args.lr_gamma)

    if args.resume:
        checkpoint = torch.load(args.resume, map_location="cpu", weights_only=False)
        model.load_state_dict(checkpoint["model"])
        optimizer.load_state_dict(checkpoint["optimizer"])
        lr_scheduler.load_state_dict(checkpoint["lr_scheduler"])
        args.start_epoch = checkpoint["epoch"] + 1
        if args.amp and "scaler" in checkpoint:
            scaler.load_state_dict(checkpoint["scaler"])

    # every worker starts from rank 0's weights and optimizer state
    hvd.broadcast_parameters(model.state_dict(), root_rank=0)
    hvd.broadcast_optimizer_state(optimizer, root_rank=0)

    if args.test_only:
        evaluate(model, data_loader_test, device=device)
        return

    print(f"Start training: {hvd.size()} workers, global batch {global_batch}, lr {lr:.4f}")
    start_time = time.time()
    for epoch in range(args.start_epoch, args.epochs):
        train_sampler.set_epoch(epoch)
        train_one_epoch(model, optimizer, data_loader, device, epoch, args.print_freq, scaler)
        lr_scheduler.step()
        if args.output_dir:
            checkpoint = {
                "model": model.state_dict(),
                "optimizer": optimizer.state_dict(),
                "lr_scheduler": lr_scheduler.state_dict(),
                "args": args,
                "epoch": epoch,
            }
            if args.amp:
                checkpoint["scaler"] = scaler.state_dict()
            utils.save_on_master(checkpoint, os.path.join(args.output_dir, f"model_{epoch}.pth"))
            utils.save_on_master(checkpoint, os.path.join(args.output_dir, "checkpoint.pth"))

        evaluate(model, data_loader_test, device=device)

    total_time = time.time() - start_time
    print(f"Training time {datetime.timedelta(seconds=int(total_time))}")


if __name__ == "__main__":
    args = get_args_parser().parse_args()
    main(args)
