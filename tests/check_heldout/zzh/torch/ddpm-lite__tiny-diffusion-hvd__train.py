"""DDPM on 32x32 images, data-parallel with Horovod, AMP and activation checkpointing.

    horovodrun -np 4 python train.py --config configs/default.yaml workdir=runs/ddpm-4gpu
"""
import argparse
import glob
import os

import torch
import horovod.torch as hvd

from diffkit.config import load_config
from diffkit.data import make_loader
from diffkit.diffusion import GaussianDiffusion
from diffkit.ema import EMA
from diffkit.unet import TinyUNet


def find_latest(workdir):
    ckpts = sorted(glob.glob(os.path.join(workdir, "state_*.pt")))
    return ckpts[-1] if ckpts else None


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--config", default="configs/default.yaml")
    parser.add_argument("--no-resume", action="store_true")
    parser.add_argument("overrides", nargs="*")
    args = parser.parse_args()
    cfg = load_config(args.config, args.overrides)

    hvd.init()
    if torch.cuda.is_available():
        torch.cuda.set_device(hvd.local_rank())
        device = torch.device("cuda", hvd.local_rank())
    else:
        device = torch.device("cpu")
    torch.manual_seed(1234)

    loader = make_loader(cfg.data, cfg.batch_size, hvd.rank(), hvd.size())
    model = TinyUNet(cfg.channels).to(device)
    diffusion = GaussianDiffusion(cfg.timesteps, device)
    optimizer = torch.optim.Adam(model.parameters(), lr=cfg.lr * hvd.size())
    optimizer = hvd.DistributedOptimizer(optimizer, named_parameters=model.named_parameters(),
                                         compression=hvd.Compression.fp16)
    scaler = torch.amp.GradScaler(device.type, enabled=cfg.amp and device.type == "cuda")

    hvd.broadcast_parameters(model.state_dict(), root_rank=0)
    hvd.broadcast_optimizer_state(optimizer, root_rank=0)
    ema = EMA(model, cfg.ema_decay)

    start_epoch = 0
    latest = None if args.no_resume else find_latest(cfg.workdir)
    if latest and hvd.rank() == 0:
        state = torch.load(latest, map_location=device)
        model.load_state_dict(state["model"])
        ema.load_state_dict(state["ema"])
        optimizer.load_state_dict(state["optimizer"])
        scaler.load_state_dict(state["scaler"])
        print(f"resumed from {latest}", flush=True)
    if latest:
        start_epoch = int(os.path.basename(latest)[6:12]) + 1

    for epoch in range(start_epoch, cfg.epochs):
        model.train()
        running = 0.0
        for step, x0 in enumerate(loader):
            x0 = x0.to(device, non_blocking=True)
            optimizer.zero_grad()
            with torch.autocast(device.type, enabled=cfg.amp and device.type == "cuda"):
                loss = diffusion.loss(model, x0)
            scaler.scale(loss).backward()
            optimizer.synchronize()
            scaler.unscale_(optimizer)
            torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
            with optimizer.skip_synchronize():
                scaler.step(optimizer)
            scaler.update()
            ema.update(model)
            running += loss.item()
        avg = hvd.allreduce(torch.tensor(running / max(1, step + 1)), name="train_loss").item()
        if hvd.rank() == 0:
            print(f"epoch {epoch:4d} loss {avg:.5f}", flush=True)
            if (epoch + 1) % cfg.save_every == 0 or epoch + 1 == cfg.epochs:
                os.makedirs(cfg.workdir, exist_ok=True)
                torch.save({"model": model.state_dict(), "ema": ema.state_dict(),
                            "optimizer": optimizer.state_dict(), "scaler": scaler.state_dict()},
                           os.path.join(cfg.workdir, f"state_{epoch:06d}.pt"))


if __name__ == "__main__":
    main()
