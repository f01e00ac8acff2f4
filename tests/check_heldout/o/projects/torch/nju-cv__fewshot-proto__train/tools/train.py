"""Episodic training of a prototypical network on several GPUs with Horovod.

    horovodrun -np 8 -H node1:4,node2:4 python tools/train.py --data /scratch/miniimagenet_npy
"""
import argparse
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))

import torch
import horovod.torch as hvd

from protonet.models import Conv4, proto_loss
from protonet.episodes import build_episode_loader
from protonet.utils import AverageMeter, Timer, set_seed, is_main_process, save_checkpoint, load_checkpoint


def parse_args():
    p = argparse.ArgumentParser(description="ProtoNet (Horovod)")
    p.add_argument("--data", default="data/miniimagenet_npy")
    p.add_argument("--out", default="runs/protonet")
    p.add_argument("--way", type=int, default=20, help="training way (higher way helps, see paper)")
    p.add_argument("--test-way", type=int, default=5)
    p.add_argument("--shot", type=int, default=5)
    p.add_argument("--query", type=int, default=15)
    p.add_argument("--episodes", type=int, default=2000, help="training episodes per epoch (all ranks)")
    p.add_argument("--val-episodes", type=int, default=600)
    p.add_argument("--epochs", type=int, default=60)
    p.add_argument("--lr", type=float, default=1e-3)
    p.add_argument("--step-size", type=int, default=20)
    p.add_argument("--gamma", type=float, default=0.5)
    p.add_argument("--eval-every", type=int, default=2)
    p.add_argument("--workers", type=int, default=4)
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--resume", default="")
    p.add_argument("--fp16-allreduce", action="store_true")
    p.add_argument("--local_rank", type=int, default=hvd.local_rank())
    return p.parse_args()


@torch.no_grad()
def validate(model, loader, args, device):
    model.eval()
    acc_meter = AverageMeter("acc")
    for support, query in loader:
        support, query = support.to(device), query.to(device)
        _, acc = proto_loss(model, support, query, args.test_way, args.shot, args.query)
        acc_meter.update(acc.item())
    acc = torch.tensor(acc_meter.avg)
    return hvd.allreduce(acc, name="val_acc").item()


def main():
    args = parse_args()
    hvd.init()
    set_seed(args.seed)
    use_cuda = torch.cuda.is_available()
    if use_cuda:
        torch.cuda.set_device(args.local_rank)
    device = torch.device("cuda" if use_cuda else "cpu")

    train_loader, train_sampler = build_episode_loader(
        args.data, "train", args.way, args.shot, args.query, args.episodes,
        world_size=hvd.size(), rank=hvd.rank(), workers=args.workers, seed=args.seed)
    val_loader, _ = build_episode_loader(
        args.data, "val", args.test_way, args.shot, args.query, args.val_episodes,
        world_size=hvd.size(), rank=hvd.rank(), workers=args.workers, seed=args.seed)

    model = Conv4().to(device)
    optimizer = torch.optim.Adam(model.parameters(), lr=args.lr * hvd.size())
    scheduler = torch.optim.lr_scheduler.StepLR(optimizer, step_size=args.step_size, gamma=args.gamma)

    start_epoch, best_acc = 0, 0.0
    if args.resume and os.path.isfile(args.resume):
        start_epoch, best_acc = load_checkpoint(args.resume, model, optimizer)
        for _ in range(start_epoch):
            scheduler.step()

    hvd.broadcast_parameters(model.state_dict(), root_rank=0)
    hvd.broadcast_optimizer_state(optimizer, root_rank=0)
    compression = hvd.Compression.fp16 if args.fp16_allreduce else hvd.Compression.none
    optimizer = hvd.DistributedOptimizer(optimizer, named_parameters=model.named_parameters(),
                                         compression=compression)

    timer = Timer()
    for epoch in range(start_epoch, args.epochs):
        model.train()
        train_sampler.set_epoch(epoch)
        loss_m, acc_m = AverageMeter("loss"), AverageMeter("acc")
        timer.tic()
        for support, query in train_loader:
            support, query = support.to(device, non_blocking=True), query.to(device, non_blocking=True)
            loss, acc = proto_loss(model, support, query, args.way, args.shot, args.query)
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            loss_m.update(loss.item())
            acc_m.update(acc.item())
        scheduler.step()
        if hvd.rank() == 0:
            print(f"epoch {epoch} {loss_m} {acc_m} lr {scheduler.get_last_lr()[0]:.2e} {timer.toc():.1f}s")

        if (epoch + 1) % args.eval_every == 0 or epoch + 1 == args.epochs:
            val_acc = validate(model, val_loader, args, device)
            is_best = val_acc > best_acc
            best_acc = max(best_acc, val_acc)
            if is_main_process():
                print(f"  val {args.test_way}-way {args.shot}-shot acc {val_acc:.4f} (best {best_acc:.4f})")
                save_checkpoint({"epoch": epoch + 1, "model": model.state_dict(),
                                 "optimizer": optimizer.state_dict(), "best_acc": best_acc},
                                args.out, is_best)


if __name__ == "__main__":
    main()
