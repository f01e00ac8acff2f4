import math
import sys
import time

import torch

from utils import dist_utils


def adjust_learning_rate(optimizer, epoch_float, args):
    """Half-cycle cosine after a linear warm-up (per iteration)."""
    if epoch_float < args.warmup_epochs:
        lr = args.lr * epoch_float / args.warmup_epochs
    else:
        progress = (epoch_float - args.warmup_epochs) / (args.epochs - args.warmup_epochs)
        lr = args.min_lr + (args.lr - args.min_lr) * 0.5 * (1.0 + math.cos(math.pi * progress))
    for group in optimizer.param_groups:
        group["lr"] = lr
    return lr


def train_one_epoch(model, criterion, loader, optimizer, scaler, epoch, args, writer=None):
    model.train()
    n = len(loader)
    start = time.time()
    for step, (x, doy, mask, y) in enumerate(loader):
        lr = adjust_learning_rate(optimizer, epoch + step / n, args)
        x = x.to(args.device, non_blocking=True)
        doy = doy.to(args.device, non_blocking=True)
        mask = mask.to(args.device, non_blocking=True)
        y = y.to(args.device, non_blocking=True)

        with torch.cuda.amp.autocast(enabled=args.amp):
            logits = model(x, doy, mask)
            loss = criterion(logits, y)

        if not math.isfinite(loss.item()):
            print(f"loss is {loss.item()}, stopping", force=True)
            sys.exit(1)

        optimizer.zero_grad(set_to_none=True)
        scaler.scale(loss).backward()
        if args.clip_grad:
            scaler.unscale_(optimizer)
            torch.nn.utils.clip_grad_norm_(model.parameters(), args.clip_grad)
        scaler.step(optimizer)
        scaler.update()

        if step % args.print_freq == 0:
            loss_avg = dist_utils.reduce_mean(loss, name="train_loss").item()
            print(f"Epoch [{epoch}] [{step}/{n}] loss {loss_avg:.4f} lr {lr:.2e}")
            if writer is not None:
                writer.add_scalar("train/loss", loss_avg, epoch * n + step)
                writer.add_scalar("train/lr", lr, epoch * n + step)
    print(f"Epoch [{epoch}] done in {time.time() - start:.0f}s")


@torch.no_grad()
def evaluate(model, criterion, loader, args):
    model.eval()
    loss_sum = torch.zeros(1, device=args.device)
    correct = torch.zeros(1, device=args.device)
    count = torch.zeros(1, device=args.device)
    for x, doy, mask, y in loader:
        x, doy, mask, y = (t.to(args.device, non_blocking=True) for t in (x, doy, mask, y))
        with torch.cuda.amp.autocast(enabled=args.amp):
            logits = model(x, doy, mask)
            loss = criterion(logits, y)
        loss_sum += loss.float() * y.numel()
        correct += (logits.argmax(-1) == y).sum()
        count += y.numel()
    val_loss = dist_utils.reduce_mean(loss_sum / count, name="val_loss").item()
    val_acc = dist_utils.reduce_mean(correct / count, name="val_acc").item()
    return {"loss": val_loss, "acc": val_acc}
