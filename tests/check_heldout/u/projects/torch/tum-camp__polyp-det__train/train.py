"""Polyp detection baseline (single box per frame), Horovod version.

horovodrun -np 8 -H gpu03:4,gpu04:4 python train.py --data /mnt/camp/polyp_npz --backbone resnet34
"""
import argparse
import json
import os

import torch
import torch.nn.functional as F

import horovod.torch as hvd

from data.polyp import build_loader
from models.detector import SingleBoxDetector
from utils import get_local_rank, get_rank, get_world_size, is_main_process
from utils.checkpoint import load_checkpoint, save_checkpoint
from utils.eval_map import evaluate_map


def get_args():
    ap = argparse.ArgumentParser()
    ap.add_argument("--data", default="/mnt/camp/polyp_npz")
    ap.add_argument("--backbone", default="resnet34")
    ap.add_argument("--pretrained", action="store_true")
    ap.add_argument("--epochs", type=int, default=40)
    ap.add_argument("--batch-size", type=int, default=16, help="per GPU")
    ap.add_argument("--lr", type=float, default=0.01)
    ap.add_argument("--momentum", type=float, default=0.9)
    ap.add_argument("--wd", type=float, default=5e-4)
    ap.add_argument("--box-weight", type=float, default=5.0)
    ap.add_argument("--workers", type=int, default=4)
    ap.add_argument("--out", default="work_dirs/polyp_baseline")
    ap.add_argument("--resume", default="")
    return ap.parse_args()


def detection_loss(logit, pred_box, has_polyp, box, box_weight):
    cls_loss = F.binary_cross_entropy_with_logits(logit, has_polyp)
    pos = has_polyp > 0.5
    if pos.any():
        box_loss = F.smooth_l1_loss(pred_box[pos], box[pos], beta=0.05)
    else:
        box_loss = pred_box.sum() * 0.0
    return cls_loss + box_weight * box_loss, cls_loss.detach(), box_loss.detach()


def main():
    args = get_args()
    hvd.init()
    torch.manual_seed(42)
    if torch.cuda.is_available():
        torch.cuda.set_device(get_local_rank())
        device = torch.device("cuda", get_local_rank())
    else:
        device = torch.device("cpu")

    train_loader, train_sampler = build_loader(args.data, "train", args.batch_size, get_world_size(), get_rank(),
                                               args.workers)
    val_loader, _ = build_loader(args.data, "val", args.batch_size, get_world_size(), get_rank(), args.workers)

    model = SingleBoxDetector(args.backbone, pretrained=args.pretrained).to(device)
    optimizer = torch.optim.SGD(model.parameters(), lr=args.lr * get_world_size(), momentum=args.momentum,
                                weight_decay=args.wd)
    start_epoch = 0
    if args.resume:
        start_epoch = load_checkpoint(args.resume, model, optimizer)
    scheduler = torch.optim.lr_scheduler.MultiStepLR(optimizer, milestones=[25, 35], gamma=0.1)
    for _ in range(start_epoch):
        scheduler.step()

    hvd.broadcast_parameters(model.state_dict(), root_rank=0)
    hvd.broadcast_optimizer_state(optimizer, root_rank=0)
    optimizer = hvd.DistributedOptimizer(optimizer, named_parameters=model.named_parameters())

    history = []
    for epoch in range(start_epoch, args.epochs):
        model.train()
        train_sampler.set_epoch(epoch)
        for i, (img, has_polyp, box) in enumerate(train_loader):
            img, has_polyp, box = img.to(device), has_polyp.to(device), box.to(device)
            optimizer.zero_grad()
            logit, pred_box = model(img)
            loss, l_cls, l_box = detection_loss(logit, pred_box, has_polyp, box, args.box_weight)
            loss.backward()
            optimizer.step()
            if i % 20 == 0 and is_main_process():
                print(f"[{epoch}][{i}/{len(train_loader)}] loss {loss.item():.3f} "
                      f"cls {l_cls.item():.3f} box {l_box.item():.3f}", flush=True)
        scheduler.step()

        res = evaluate_map(model, val_loader, device)
        if is_main_process():
            print(f"epoch {epoch}: val AP50 = {res['AP50']:.4f} on {res['n_images']} frames")
            history.append({"epoch": epoch, **res})
            with open(os.path.join(args.out, "history.json") if os.path.isdir(args.out) else os.devnull, "w") as f:
                json.dump(history, f, indent=1)
        save_checkpoint({"model": model.state_dict(), "optimizer": optimizer.state_dict(), "epoch": epoch},
                        args.out)


if __name__ == "__main__":
    main()
