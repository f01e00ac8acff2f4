import math
import time

import horovod.torch as hvd
import torch
import torch.nn as nn

from datasets import build_loaders
from models import get_model
from opts import parse_opts
from utils.checkpoint import save_checkpoint
from utils.device import to_device
from utils.meters import AverageMeter, accuracy, metric_average


def train_one_epoch(model, loader, criterion, optimizer, scheduler, epoch, args):
    model.train()
    losses, top1 = AverageMeter("Loss"), AverageMeter("Acc@1", ":.2f")
    for i, (images, target) in enumerate(loader):
        images, target = to_device(images, target)
        output = model(images)
        loss = criterion(output, target)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        scheduler.step()
        losses.update(loss.item(), images.size(0))
        top1.update(accuracy(output, target)[0], images.size(0))
        if hvd.rank() == 0 and i % args.print_freq == 0:
            print(f"Epoch [{epoch}][{i}/{len(loader)}] {losses} {top1}", flush=True)
    return metric_average(losses.avg, "train_loss"), metric_average(top1.avg, "train_acc")


def validate(model, loader, criterion):
    model.eval()
    losses, top1, top5 = AverageMeter("Loss"), AverageMeter("Acc@1"), AverageMeter("Acc@5")
    with torch.no_grad():
        for images, target in loader:
            images, target = to_device(images, target)
            output = model(images)
            acc1, acc5 = accuracy(output, target, topk=(1, 5))
            losses.update(criterion(output, target).item(), images.size(0))
            top1.update(acc1, images.size(0))
            top5.update(acc5, images.size(0))
    return (metric_average(losses.avg, "val_loss"), metric_average(top1.avg, "val_top1"),
            metric_average(top5.avg, "val_top5"))


def main():
    hvd.init()
    args = parse_opts()
    torch.manual_seed(args.seed)

    train_loader, val_loader, train_sampler, num_classes = build_loaders(args)
    model = to_device(get_model(args.arch, num_classes, args.pretrained))
    criterion = nn.CrossEntropyLoss(label_smoothing=args.label_smoothing)

    scaled_lr = args.lr * hvd.size()
    optimizer = torch.optim.SGD(model.parameters(), lr=scaled_lr, momentum=args.momentum,
                                weight_decay=args.wd, nesterov=True)
    optimizer = hvd.DistributedOptimizer(optimizer, named_parameters=model.named_parameters())
    hvd.broadcast_parameters(model.state_dict(), root_rank=0)
    hvd.broadcast_optimizer_state(optimizer, root_rank=0)

    steps_per_epoch = len(train_loader)
    warmup = args.warmup_epochs * steps_per_epoch
    total = args.epochs * steps_per_epoch

    def lr_lambda(step):
        if step < warmup:
            return (step + 1) / warmup
        return 0.5 * (1 + math.cos(math.pi * (step - warmup) / (total - warmup)))

    scheduler = torch.optim.lr_scheduler.LambdaLR(optimizer, lr_lambda)

    best_acc = 0.0
    for epoch in range(args.epochs):
        train_sampler.set_epoch(epoch)
        tic = time.time()
        train_loss, train_acc = train_one_epoch(model, train_loader, criterion, optimizer,
                                                scheduler, epoch, args)
        val_loss, val_top1, val_top5 = validate(model, val_loader, criterion)
        is_best = val_top1 > best_acc
        best_acc = max(best_acc, val_top1)
        if hvd.rank() == 0:
            print(f"* epoch {epoch} train_loss {train_loss:.4f} train_acc {train_acc:.2f} "
                  f"val_loss {val_loss:.4f} top1 {val_top1:.2f} top5 {val_top5:.2f} "
                  f"time {time.time() - tic:.0f}s", flush=True)
        save_checkpoint({"epoch": epoch, "model": model.state_dict(),
                         "optimizer": optimizer.state_dict(), "best_acc": best_acc},
                        args.save_dir, is_best, is_master=hvd.rank() == 0)


if __name__ == "__main__":
    main()
