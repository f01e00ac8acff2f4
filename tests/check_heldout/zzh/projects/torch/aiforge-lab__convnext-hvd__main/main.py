"""ConvNeXt-T on ImageNet-100 with Horovod: AMP, gradient accumulation via
backward_passes_per_step, activation checkpointing, auto-resume from <output>/last.pth."""
import argparse
import os
import time

import torch
import torch.nn as nn
import horovod.torch as hvd

from engine import setup_distributed, is_main_process
from engine.data import build_loaders
from engine.models import ConvNeXtTiny
from utils.meters import AverageMeter
from utils.sched import cosine_with_warmup


def get_args():
    p = argparse.ArgumentParser("convnext-hvd")
    p.add_argument("--data-path", default="/datasets/imagenet100")
    p.add_argument("--output", default="output/convnext_t")
    p.add_argument("--img-size", type=int, default=224)
    p.add_argument("--batch-size", type=int, default=64)
    p.add_argument("--accum-iter", type=int, default=2)
    p.add_argument("--blr", type=float, default=4e-3, help="lr for a global batch of 4096")
    p.add_argument("--epochs", type=int, default=100)
    p.add_argument("--warmup-epochs", type=int, default=5)
    p.add_argument("--weight-decay", type=float, default=0.05)
    p.add_argument("--grad-ckpt", action="store_true")
    p.add_argument("--seed", type=int, default=0)
    return p.parse_args()


@torch.no_grad()
def evaluate(model, loader, device):
    model.eval()
    correct, seen = 0, 0
    for images, target in loader:
        images, target = images.to(device, non_blocking=True), target.to(device, non_blocking=True)
        with torch.autocast(device.type, enabled=device.type == "cuda"):
            output = model(images)
        correct += (output.argmax(1) == target).sum().item()
        seen += target.numel()
    correct = hvd.allreduce(torch.tensor(correct, dtype=torch.float64), name="val_correct").item()
    return 100.0 * correct / len(loader.dataset)


def main(args):
    device = setup_distributed(args.seed)
    train_loader, val_loader, train_sampler = build_loaders(
        args.data_path, args.img_size, args.batch_size, hvd.rank(), hvd.size())

    model = ConvNeXtTiny(num_classes=len(train_loader.dataset.classes), grad_ckpt=args.grad_ckpt).to(device)
    eff_batch = args.batch_size * args.accum_iter * hvd.size()
    lr = args.blr * eff_batch / 4096
    optimizer = torch.optim.AdamW(model.parameters(), lr=lr, weight_decay=args.weight_decay)

    start_epoch, best_acc = 0, 0.0
    last = os.path.join(args.output, "last.pth")
    if os.path.exists(last):
        ckpt = torch.load(last, map_location="cpu")
        model.load_state_dict(ckpt["model"])
        optimizer.load_state_dict(ckpt["optimizer"])
        start_epoch, best_acc = ckpt["epoch"] + 1, ckpt["best_acc"]

    hvd.broadcast_parameters(model.state_dict(), root_rank=0)
    hvd.broadcast_optimizer_state(optimizer, root_rank=0)
    optimizer = hvd.DistributedOptimizer(optimizer, named_parameters=model.named_parameters(),
                                         compression=hvd.Compression.fp16,
                                         backward_passes_per_step=args.accum_iter)
    scaler = torch.amp.GradScaler(device.type, enabled=device.type == "cuda")
    criterion = nn.CrossEntropyLoss(label_smoothing=0.1)

    for epoch in range(start_epoch, args.epochs):
        model.train()
        train_sampler.set_epoch(epoch)
        loss_meter = AverageMeter("loss")
        t0 = time.time()
        for it, (images, target) in enumerate(train_loader):
            if it % args.accum_iter == 0:
                for g in optimizer.param_groups:
                    g["lr"] = cosine_with_warmup(lr, epoch, it, len(train_loader), args.warmup_epochs, args.epochs)
            images, target = images.to(device, non_blocking=True), target.to(device, non_blocking=True)
            with torch.autocast(device.type, enabled=device.type == "cuda"):
                loss = criterion(model(images), target) / args.accum_iter
            scaler.scale(loss).backward()
            if (it + 1) % args.accum_iter == 0 or it + 1 == len(train_loader):
                optimizer.synchronize()
                scaler.unscale_(optimizer)
                with optimizer.skip_synchronize():
                    scaler.step(optimizer)
                scaler.update()
                optimizer.zero_grad()
            loss_meter.update(loss.item() * args.accum_iter, images.size(0))

        acc = evaluate(model, val_loader, device)
        if is_main_process():
            print(f"[{epoch}] {loss_meter} val_acc {acc:.2f} time {time.time() - t0:.0f}s", flush=True)
            best_acc = max(best_acc, acc)
            os.makedirs(args.output, exist_ok=True)
            state = {"model": model.state_dict(), "optimizer": optimizer.state_dict(),
                     "epoch": epoch, "best_acc": best_acc}
            torch.save(state, last)
            if acc >= best_acc:
                torch.save(state, os.path.join(args.output, "best.pth"))


if __name__ == "__main__":
    main(get_args())
