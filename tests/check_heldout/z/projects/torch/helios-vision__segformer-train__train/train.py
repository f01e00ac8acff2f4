"""Train the lightweight SegFormer on the aerial tiles.

Launch (since 2024-03, Horovod):  horovodrun -np 8 -H node1:4,node2:4 python train.py --data /data/tiles
The old torchrun entry (train_ddp.py) was removed; engine/ keeps the shared helpers.
"""
import argparse
import os

import torch
import torch.nn.functional as F

import horovod.torch as hvd

from engine import dist as edist
from engine.checkpoint import save_checkpoint
from engine.data import build_loaders
from engine.metrics import MetricLogger, confusion_iou
from engine.model import SegFormerLite


def get_args():
    p = argparse.ArgumentParser("segformer-lite")
    p.add_argument("--data", default="/data/tiles")
    p.add_argument("--batch-size", type=int, default=16, help="per GPU")
    p.add_argument("--base-lr", type=float, default=6e-5, help="lr for a global batch of 16")
    p.add_argument("--epochs", type=int, default=40)
    p.add_argument("--num-classes", type=int, default=6)
    p.add_argument("--output", default="runs/segformer")
    p.add_argument("--workers", type=int, default=4)
    return p.parse_args()


def main(args):
    edist.init_horovod()
    device = torch.device("cpu")
    if torch.cuda.is_available():
        local_rank = int(os.environ.get("LOCAL_RANK", 0))
        torch.cuda.set_device(local_rank)
        device = torch.device("cuda", local_rank)
    torch.manual_seed(0)

    train_loader, val_loader, train_sampler = build_loaders(args.data, args.batch_size, args.workers)
    model = SegFormerLite(num_classes=args.num_classes).to(device)

    global_batch = args.batch_size * hvd.size()
    lr = args.base_lr * global_batch / 16
    optimizer = torch.optim.AdamW(model.parameters(), lr=lr, weight_decay=0.01)
    optimizer = hvd.DistributedOptimizer(optimizer, named_parameters=model.named_parameters())
    edist.sync_initial_state(model, optimizer)

    for epoch in range(args.epochs):
        train_sampler.set_epoch(epoch)
        model.train()
        logger = MetricLogger()
        for images, masks in train_loader:
            images, masks = images.to(device), masks.to(device)
            logits = model(images)
            loss = F.cross_entropy(logits, masks, ignore_index=255)
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            logger.update(loss=loss.item())

        model.eval()
        val_log = MetricLogger()
        with torch.no_grad():
            for images, masks in val_loader:
                logits = model(images.to(device))
                val_log.update(loss=F.cross_entropy(logits, masks.to(device), ignore_index=255).item(),
                               miou=confusion_iou(logits.argmax(1).cpu(), masks, args.num_classes))
        val_log.synchronize_between_processes()
        if edist.is_main_process():
            print(f"epoch {epoch} train {logger} | val {val_log}")
        save_checkpoint(args.output, epoch, model, optimizer, val_log.meters["miou"].global_avg)


if __name__ == "__main__":
    main(get_args())
