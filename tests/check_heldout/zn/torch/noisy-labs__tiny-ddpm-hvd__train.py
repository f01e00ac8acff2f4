"""Tiny DDPM (Ho et al. 2020) on 32x32 images, data parallel with Horovod, AMP + EMA.

    horovodrun -np 8 -H gpu01:4,gpu02:4 python train.py --data data/cifar_train.npy --steps 200000
"""
import argparse
import copy
import os
import time

import torch
import torch.nn.functional as F
import horovod.torch as hvd

from ddpm.schedule import NoiseSchedule
from ddpm.unet import TinyUNet
from ddpm.data import make_loader
from utils import dist
from utils.ckpt import save_checkpoint, load_checkpoint, ema_update


def parse_args():
    ap = argparse.ArgumentParser()
    ap.add_argument("--data", default="data/cifar_train.npy")
    ap.add_argument("--val-data", default="data/cifar_test.npy")
    ap.add_argument("--batch-size", type=int, default=64)
    ap.add_argument("--lr", type=float, default=2e-4)
    ap.add_argument("--steps", type=int, default=200_000)
    ap.add_argument("--timesteps", type=int, default=1000)
    ap.add_argument("--schedule", choices=["linear", "cosine"], default="linear")
    ap.add_argument("--ema-decay", type=float, default=0.9999)
    ap.add_argument("--grad-clip", type=float, default=1.0)
    ap.add_argument("--amp", action="store_true")
    ap.add_argument("--ckpt-dir", default="ckpt")
    ap.add_argument("--ckpt-every", type=int, default=5000)
    ap.add_argument("--eval-every", type=int, default=2500)
    ap.add_argument("--log-every", type=int, default=100)
    return ap.parse_args()


@torch.no_grad()
def validate(model, sched, loader, device):
    model.eval()
    total, n = 0.0, 0
    g = torch.Generator(device="cpu").manual_seed(0)
    for x in loader:
        x = x.to(device)
        t = torch.randint(0, sched.T, (x.size(0),), generator=g).to(device)
        noise = torch.randn(x.shape, generator=g).to(device)
        total += F.mse_loss(model(sched.q_sample(x, t, noise), t), noise, reduction="sum").item()
        n += x.numel()
    model.train()
    return dist.reduce_mean(torch.tensor(total / max(n, 1)))


def main():
    args = parse_args()
    local_rank = dist.setup()
    device = torch.device("cuda", local_rank) if torch.cuda.is_available() else torch.device("cpu")
    use_amp = args.amp and device.type == "cuda"

    train_loader, train_sampler = make_loader(args.data, args.batch_size, train=True)
    val_loader, _ = make_loader(args.val_data, 256, train=False)

    sched = NoiseSchedule(args.timesteps, kind=args.schedule).to(device)
    model = TinyUNet().to(device)
    ema = copy.deepcopy(model).eval().requires_grad_(False)

    optimizer = torch.optim.AdamW(model.parameters(), lr=args.lr * hvd.size(), weight_decay=0.0)
    scaler = torch.cuda.amp.GradScaler(enabled=use_amp)

    step = 0
    last = os.path.join(args.ckpt_dir, "last.pt")
    if os.path.exists(last):
        step = load_checkpoint(last, model, ema, optimizer, scaler)

    hvd.broadcast_parameters(model.state_dict(), root_rank=0)
    hvd.broadcast_parameters(ema.state_dict(), root_rank=0)
    hvd.broadcast_optimizer_state(optimizer, root_rank=0)
    step = hvd.broadcast_object(step, root_rank=0)

    optimizer = hvd.DistributedOptimizer(optimizer, named_parameters=model.named_parameters())

    epoch, t0 = 0, time.time()
    while step < args.steps:
        train_sampler.set_epoch(epoch)
        for x in train_loader:
            x = x.to(device, non_blocking=True)
            t = torch.randint(0, sched.T, (x.size(0),), device=device)
            noise = torch.randn_like(x)
            with torch.autocast(device_type=device.type, enabled=use_amp):
                loss = F.mse_loss(model(sched.q_sample(x, t, noise), t), noise)

            optimizer.zero_grad()
            scaler.scale(loss).backward()
            optimizer.synchronize()
            scaler.unscale_(optimizer)
            torch.nn.utils.clip_grad_norm_(model.parameters(), args.grad_clip)
            with optimizer.skip_synchronize():
                scaler.step(optimizer)
            scaler.update()
            ema_update(ema, model, args.ema_decay)
            step += 1

            if step % args.log_every == 0:
                avg = dist.reduce_mean(loss.detach())
                if dist.is_main():
                    ips = args.log_every * args.batch_size * hvd.size() / (time.time() - t0)
                    print(f"step {step} loss {avg:.4f} ({ips:.0f} img/s)", flush=True)
                    t0 = time.time()
            if step % args.eval_every == 0:
                val = validate(ema, sched, val_loader, device)
                if dist.is_main():
                    print(f"step {step} val_eps_mse(ema) {val:.5f}", flush=True)
            if step % args.ckpt_every == 0 and dist.is_main():
                save_checkpoint(last, model, ema, optimizer, scaler, step)
            if step >= args.steps:
                break
        epoch += 1

    if dist.is_main():
        save_checkpoint(os.path.join(args.ckpt_dir, "final.pt"), model, ema, optimizer, scaler, step)


if __name__ == "__main__":
    main()
