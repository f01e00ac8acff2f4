"""Train a DnCNN to denoise low-dose CT slices.

    horovodrun -np 4 python main.py --data /data/ldct/train --val /data/ldct/val --device auto --amp
"""
import argparse
import math
import time

import torch
import torch.nn.functional as F
import horovod.torch as hvd

from denoise import ckpt, dist
from denoise.data import SlicePairs, list_ids, rank_split
from denoise.model import DnCNN


def psnr(pred, target):
    mse = F.mse_loss(pred, target).item()
    return 10 * math.log10(1.0 / max(mse, 1e-10))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--data", required=True)
    ap.add_argument("--val", required=True)
    ap.add_argument("--device", choices=["auto", "cuda", "cpu"], default="auto")
    ap.add_argument("--epochs", type=int, default=50)
    ap.add_argument("--batch", type=int, default=32)
    ap.add_argument("--lr", type=float, default=1e-3)
    ap.add_argument("--amp", action="store_true")
    ap.add_argument("--resume", default="checkpoints/last.pt")
    ap.add_argument("--seed", type=int, default=0)
    args = ap.parse_args()

    device = dist.setup(args.device)
    use_amp = args.amp and device.type == "cuda"

    train_ids, val_ids = list_ids(args.data), list_ids(args.val)
    val_set = SlicePairs(args.val, rank_split(val_ids, hvd.rank(), hvd.size(), args.seed), train=False)
    val_loader = torch.utils.data.DataLoader(val_set, batch_size=1)

    model = DnCNN().to(device)
    optimizer = torch.optim.Adam(model.parameters(), lr=args.lr * dist.world())
    scaler = torch.cuda.amp.GradScaler(enabled=use_amp)
    optimizer = hvd.DistributedOptimizer(optimizer, named_parameters=model.named_parameters())
    start_epoch, best = ckpt.resume_and_sync(args.resume, model, optimizer, scaler)

    for epoch in range(start_epoch, args.epochs):
        ids = rank_split(train_ids, hvd.rank(), hvd.size(), args.seed, epoch)
        loader = torch.utils.data.DataLoader(SlicePairs(args.data, ids), batch_size=args.batch,
                                             shuffle=True, num_workers=4, drop_last=True)
        model.train()
        t0 = time.time()
        for low, full in loader:
            low, full = low.to(device), full.to(device)
            optimizer.zero_grad()
            with torch.autocast(device_type=device.type, enabled=use_amp):
                loss = F.mse_loss(model(low), full)
            scaler.scale(loss).backward()
            optimizer.synchronize()
            scaler.unscale_(optimizer)
            torch.nn.utils.clip_grad_norm_(model.parameters(), 0.5)
            with optimizer.skip_synchronize():
                scaler.step(optimizer)
            scaler.update()

        model.eval()
        with torch.no_grad():
            scores = [psnr(model(l.to(device)).clamp(0, 1), f.to(device)) for l, f in val_loader]
        val_psnr = dist.global_mean(sum(scores) / max(len(scores), 1), "val_psnr")
        best = max(best, val_psnr)
        if dist.is_main():
            print(f"epoch {epoch:3d}  loss {loss.item():.5f}  val PSNR {val_psnr:.2f} dB  "
                  f"best {best:.2f}  {time.time() - t0:.0f}s", flush=True)
        ckpt.save(args.resume, model, optimizer, scaler, epoch, best)
        if val_psnr >= best:
            ckpt.save(args.resume.replace("last", "best"), model, optimizer, scaler, epoch, best)


if __name__ == "__main__":
    main()
