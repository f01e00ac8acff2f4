r"""RetinaNet on BDD100K, Horovod training.

Derived from torchvision/references/detection. Run with
    horovodrun -np 8 python train.py --data-path /data/bdd100k --epochs 12 --lr-steps 8 11
"""
import datetime
import os
import time

import torch
import torch.utils.data
import torchvision
import horovod.torch as hvd

from core import utils
from core.engine import evaluate, train_one_epoch
from core.samplers import GroupedBatchSampler, create_aspect_ratio_groups
from datasets.bdd import BDD_CLASSES, BDDDetection


def get_args_parser(add_help=True):
    import argparse

    parser = argparse.ArgumentParser(description="RetinaNet BDD100K training", add_help=add_help)
    parser.add_argument("--data-path", default="/data/bdd100k", type=str)
    parser.add_argument("--model", default="retinanet_resnet50_fpn", type=str)
    parser.add_argument("--device", default="cuda", type=str)
    parser.add_argument("-b", "--batch-size", default=2, type=int, help="images per gpu")
    parser.add_argument("--epochs", default=12, type=int)
    parser.add_argument("-j", "--workers", default=4, type=int)
    parser.add_argument("--lr", default=0.00125, type=float, help="lr per GPU (x number of workers)")
    parser.add_argument("--momentum", default=0.9, type=float)
    parser.add_argument("--weight-decay", default=1e-4, type=float)
    parser.add_argument("--lr-steps", default=[8, 11], nargs="+", type=int)
    parser.add_argument("--lr-gamma", default=0.1, type=float)
    parser.add_argument("--warmup-iters", default=1000, type=int)
    parser.add_argument("--print-freq", default=20, type=int)
    parser.add_argument("--output-dir", default="output/retinanet_bdd", type=str)
    parser.add_argument("--resume", default="", type=str)
    parser.add_argument("--start-epoch", default=0, type=int)
    parser.add_argument("--aspect-ratio-group-factor", default=3, type=int)
    parser.add_argument("--test-only", action="store_true")
    return parser


def main(args):
    utils.init_distributed_mode(args)
    os.makedirs(args.output_dir, exist_ok=True)
    device = torch.device(args.device)

    dataset = BDDDetection(args.data_path, "train", train=True)
    dataset_test = BDDDetection(args.data_path, "val")

    if args.distributed:
        train_sampler = torch.utils.data.distributed.DistributedSampler(dataset, num_replicas=hvd.size(), rank=hvd.rank())
        test_sampler = torch.utils.data.distributed.DistributedSampler(dataset_test, num_replicas=hvd.size(), rank=hvd.rank(), shuffle=False)
    else:
        train_sampler = torch.utils.data.RandomSampler(dataset)
        test_sampler = torch.utils.data.SequentialSampler(dataset_test)

    if args.aspect_ratio_group_factor >= 0:
        group_ids = create_aspect_ratio_groups(dataset, k=args.aspect_ratio_group_factor)
        train_batch_sampler = GroupedBatchSampler(torch.utils.data.RandomSampler(dataset), group_ids, args.batch_size)
    else:
        train_batch_sampler = torch.utils.data.BatchSampler(train_sampler, args.batch_size, drop_last=True)

    data_loader = torch.utils.data.DataLoader(
        dataset, batch_sampler=train_batch_sampler, num_workers=args.workers, collate_fn=utils.collate_fn
    )
    data_loader_test = torch.utils.data.DataLoader(
        dataset_test, batch_size=1, sampler=test_sampler, num_workers=args.workers, collate_fn=utils.collate_fn
    )

    model = torchvision.models.get_model(args.model, weights=None, weights_backbone=None, num_classes=len(BDD_CLASSES))
    model.to(device)

    params = [p for p in model.parameters() if p.requires_grad]
    optimizer = torch.optim.SGD(params, lr=args.lr * hvd.size(), momentum=args.momentum, weight_decay=args.weight_decay)
    optimizer = hvd.DistributedOptimizer(optimizer, named_parameters=model.named_parameters())
    lr_scheduler = torch.optim.lr_scheduler.MultiStepLR(optimizer, milestones=args.lr_steps, gamma=args.lr_gamma)

    if args.resume:
        checkpoint = torch.load(args.resume, map_location="cpu", weights_only=False)
        model.load_state_dict(checkpoint["model"])
        optimizer.load_state_dict(checkpoint["optimizer"])
        lr_scheduler.load_state_dict(checkpoint["lr_scheduler"])
        args.start_epoch = checkpoint["epoch"] + 1

    hvd.broadcast_parameters(model.state_dict(), root_rank=0)
    hvd.broadcast_optimizer_state(optimizer, root_rank=0)

    if args.test_only:
        ap50 = evaluate(model, data_loader_test, device=device)
        if utils.is_main_process():
            print(f"AP50: {ap50:.4f}")
        return

    start_time = time.time()
    for epoch in range(args.start_epoch, args.epochs):
        if args.distributed:
            train_sampler.set_epoch(epoch)
        train_one_epoch(model, optimizer, data_loader, device, epoch, args.print_freq, args.warmup_iters)
        lr_scheduler.step()
        utils.save_on_master(
            {
                "model": model.state_dict(),
                "optimizer": optimizer.state_dict(),
                "lr_scheduler": lr_scheduler.state_dict(),
                "args": args,
                "epoch": epoch,
            },
            os.path.join(args.output_dir, "checkpoint.pth"),
        )
        ap50 = evaluate(model, data_loader_test, device=device)
        if utils.is_main_process():
            print(f"epoch {epoch}: AP50 {ap50:.4f}")

    print(f"Training time {datetime.timedelta(seconds=int(time.time() - start_time))}")


if __name__ == "__main__":
    args = get_args_parser().parse_args()
    main(args)
