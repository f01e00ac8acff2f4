"""Joint semantic segmentation + depth on NYUv2 with uncertainty weighting (Horovod, AMP)."""
import argparse
import os
import time

import torch
import horovod.torch as hvd

from mtl.model import MultiTaskNet
from mtl.losses import UncertaintyWeightedLoss
from mtl.data import make_loader
from mtl.evaluator import evaluate
from mtl.schedule import WarmupCosine


def parse():
    p = argparse.ArgumentParser()
    p.add_argument("--data-root", default="/data/nyuv2_npz")
    p.add_argument("--num-classes", type=int, default=13)
    p.add_argument("--width", type=int, default=32)
    p.add_argument("--batch-size", type=int, default=8, help="per GPU")
    p.add_argument("--epochs", type=int, default=100)
    p.add_argument("--base-lr", type=float, default=2e-4, help="lr for one GPU; scaled by the number of workers")
    p.add_argument("--weight-decay", type=float, default=1e-4)
    p.add_argument("--warmup-iters", type=int, default=500)
    p.add_argument("--clip", type=float, default=5.0)
    p.add_argument("--amp", action="store_true")
    p.add_argument("--eval-freq", type=int, default=5)
    p.add_argument("--workers", type=int, default=4)
    p.add_argument("--save-dir", default="work_dirs/mtl_nyu")
    p.add_argument("--local_rank", type=int, default=0)
    return p.parse_args()


def main():
    args = parse()
    hvd.init()
    torch.manual_seed(42)
    torch.backends.cudnn.benchmark = True
    if torch.cuda.is_available():
        torch.cuda.set_device(args.local_rank)
        device = torch.device("cuda", args.local_rank)
    else:
        device = torch.device("cpu")
    amp = args.amp and device.type == "cuda"

    train_loader, train_sampler = make_loader(args.data_root, "train", args.batch_size, hvd.size(), hvd.rank(),
                                              workers=args.workers)
    val_loader, _ = make_loader(args.data_root, "val", args.batch_size, hvd.size(), hvd.rank(),
                                workers=args.workers)

    model = MultiTaskNet(args.num_classes, args.width).to(device)
    criterion = UncertaintyWeightedLoss().to(device)
    params = [{"params": model.parameters()},
              {"params": criterion.parameters(), "weight_decay": 0.0}]
    optimizer = torch.optim.AdamW(params, lr=args.base_lr * hvd.size(), weight_decay=args.weight_decay)
    named = list(model.named_parameters()) + [("criterion." + n, p) for n, p in criterion.named_parameters()]
    optimizer = hvd.DistributedOptimizer(optimizer, named_parameters=named, op=hvd.Average)
    hvd.broadcast_parameters(model.state_dict(), root_rank=0)
    hvd.broadcast_parameters(criterion.state_dict(), root_rank=0)
    hvd.broadcast_optimizer_state(optimizer, root_rank=0)

    scheduler = WarmupCosine(optimizer, args.epochs * len(train_loader), warmup_iters=args.warmup_iters)
    scaler = torch.cuda.amp.GradScaler(enabled=amp)
    best_miou = 0.0
    os.makedirs(args.save_dir, exist_ok=True)

    for epoch in range(args.epochs):
        model.train()
        train_sampler.set_epoch(epoch)
        tic = time.time()
        for it, batch in enumerate(train_loader):
            batch = {k: v.to(device, non_blocking=True) for k, v in batch.items()}
            optimizer.zero_grad()
            with torch.autocast(device_type=device.type, enabled=amp):
                out = model(batch["image"])
            loss, parts = criterion(out, batch)
            scaler.scale(loss).backward()
            optimizer.synchronize()
            scaler.unscale_(optimizer)
            torch.nn.utils.clip_grad_norm_(list(model.parameters()) + list(criterion.parameters()), args.clip)
            with optimizer.skip_synchronize():
                scaler.step(optimizer)
            scaler.update()
            lr = scheduler.step()
            if it % 50 == 0 and hvd.rank() == 0:
                print(f"[{epoch}][{it}/{len(train_loader)}] loss {loss.item():.3f} seg {parts['seg']:.3f} "
                      f"depth {parts['depth']:.3f} lr {lr:.2e} ({time.time() - tic:.0f}s)")

        if (epoch + 1) % args.eval_freq == 0:
            metrics = evaluate(model, val_loader, args.num_classes, device, amp=amp)
            if hvd.rank() == 0:
                print(f"epoch {epoch}: mIoU {metrics['miou']:.4f} absrel {metrics['abs_rel']:.4f} "
                      f"rmse {metrics['rmse']:.4f}")
                if metrics["miou"] > best_miou:
                    best_miou = metrics["miou"]
                    torch.save({"model": model.state_dict(), "criterion": criterion.state_dict(),
                                "epoch": epoch, "miou": best_miou}, os.path.join(args.save_dir, "best.pth"))


if __name__ == "__main__":
    main()
