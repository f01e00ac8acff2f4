"""Linear-probe evaluation of a frozen self-supervised backbone (shares sslkit with pretrain).

Single node:     python linear_eval.py --ckpt runs/byol/last.pt --data /data/in100 --np 4
Under horovodrun: horovodrun -np 8 -H a:4,b:4 python linear_eval.py --ckpt ... --data ... --np 0
"""
import argparse

import torch
import torch.nn as nn

from sslkit import dist
from sslkit.backbone import load_frozen_backbone
from sslkit.data import build_probe_loaders
from sslkit.probe import evaluate, train_one_epoch


def get_parser():
    p = argparse.ArgumentParser("linear probe")
    p.add_argument("--ckpt", required=True)
    p.add_argument("--data", required=True)
    p.add_argument("--epochs", type=int, default=90)
    p.add_argument("--batch-size", type=int, default=256, help="per worker")
    p.add_argument("--lr", type=float, default=0.1, help="for 256 images")
    p.add_argument("--num-classes", type=int, default=100)
    p.add_argument("--np", type=int, default=0, help="spawn this many local workers with horovod.run")
    p.add_argument("--out", default="probe_head.pt")
    return p


def main(args):
    dist.setup()
    backbone = load_frozen_backbone(args.ckpt, device=dist.device())
    head = nn.Linear(backbone.out_dim, args.num_classes).to(dist.device())

    train_loader, train_sampler, val_loader = build_probe_loaders(args.data, args.batch_size)

    lr = args.lr * args.batch_size * dist.world_size() / 256
    optimizer = torch.optim.SGD(head.parameters(), lr=lr, momentum=0.9, weight_decay=0.0)
    optimizer = dist.wrap_and_sync(optimizer, head)
    sched = torch.optim.lr_scheduler.CosineAnnealingLR(optimizer, args.epochs)

    best = 0.0
    for epoch in range(args.epochs):
        train_sampler.set_epoch(epoch)
        loss = train_one_epoch(backbone, head, train_loader, optimizer)
        sched.step()
        if dist.is_main():
            top1 = evaluate(backbone, head, val_loader)
            print(f"epoch {epoch} train_loss {loss:.3f} val_top1 {top1:.2f}", flush=True)
            if top1 > best:
                best = top1
                torch.save({"epoch": epoch, "head": head.state_dict(), "top1": top1}, args.out)
    return best


if __name__ == "__main__":
    args = get_parser().parse_args()
    if args.np > 0:
        import horovod

        results = horovod.run(main, args=(args,), np=args.np, use_gloo=True)
        print("best top-1:", results[0])
    else:
        main(args)
