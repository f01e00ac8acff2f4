import os
import time

import numpy as np
import torch
import horovod.torch as hvd

from ldm_mini.options import TrainOptions
from ldm_mini.dist_helpers import init_horovod, barrier
from ldm_mini.data import make_loaders
from ldm_mini.networks import FrozenAE, LatentUNet, NoiseSchedule
from ldm_mini.metrics import FeatureStats, frechet_distance


def evaluate(opt, unet, ema_unet, ae, sched, val_loader, ref_stats):
    unet.eval()
    stats = FeatureStats()
    val_loss, nb = 0.0, 0
    with torch.no_grad():
        for x in val_loader:
            x = x.to(opt.device)
            z = ae.encode(x)
            val_loss += sched.loss(unet, z).item()
            nb += 1
            samples = ae.decode(sched.sample(ema_unet, z.shape, steps=opt.sample_steps))
            stats.append(ae.features(samples))
    unet.train()
    mu, sigma = stats.mean_cov()
    fd = frechet_distance(mu, sigma, *ref_stats)
    return val_loss / max(nb, 1), fd


def main():
    opt = TrainOptions().parse()
    init_horovod(opt)

    train_loader, train_sampler, val_loader = make_loaders(opt)
    ae = FrozenAE(opt.latent_ch).to(opt.device).eval()
    unet = LatentUNet(opt.latent_ch, opt.width).to(opt.device)
    ema_unet = LatentUNet(opt.latent_ch, opt.width).to(opt.device).requires_grad_(False)
    sched = NoiseSchedule(opt.timesteps, opt.device)

    optimizer = torch.optim.AdamW(unet.parameters(), lr=opt.lr * hvd.size(), weight_decay=1e-2)
    optimizer = hvd.DistributedOptimizer(optimizer, named_parameters=unet.named_parameters())
    hvd.broadcast_parameters(unet.state_dict(), root_rank=0)
    hvd.broadcast_optimizer_state(optimizer, root_rank=0)

    start_epoch = 0
    if opt.resume and hvd.rank() == 0:
        ck = torch.load(opt.resume, map_location="cpu")
        unet.load_state_dict(ck["unet"])
        optimizer.load_state_dict(ck["optimizer"])
        start_epoch = ck["epoch"] + 1
        print("resumed", opt.resume)
    start_epoch = hvd.broadcast_object(start_epoch, root_rank=0, name="start_epoch")
    ema_unet.load_state_dict(unet.state_dict())

    scaler = torch.cuda.amp.GradScaler(enabled=opt.fp16)
    ref_stats = np.load(opt.fid_ref)["mu"], np.load(opt.fid_ref)["sigma"]

    for epoch in range(start_epoch, opt.epochs):
        train_sampler.set_epoch(epoch)
        t0, run = time.time(), 0.0
        for it, x in enumerate(train_loader):
            x = x.to(opt.device)
            with torch.no_grad():
                z = ae.encode(x)
            optimizer.zero_grad()
            with torch.autocast(device_type=opt.device.type, enabled=opt.fp16):
                loss = sched.loss(unet, z)
            scaler.scale(loss).backward()
            optimizer.synchronize()
            scaler.unscale_(optimizer)
            torch.nn.utils.clip_grad_norm_(unet.parameters(), 1.0)
            with optimizer.skip_synchronize():
                scaler.step(optimizer)
            scaler.update()
            with torch.no_grad():
                for e, p in zip(ema_unet.parameters(), unet.parameters()):
                    e.mul_(opt.ema_decay).add_(p, alpha=1 - opt.ema_decay)
            run += loss.item()
            if (it + 1) % opt.print_freq == 0:
                avg = hvd.allreduce(torch.tensor(run / opt.print_freq), name="train_loss").item()
                if hvd.rank() == 0:
                    print(f"[{epoch}][{it + 1}/{len(train_loader)}] loss {avg:.4f} ({time.time() - t0:.1f}s)")
                run = 0.0

        if (epoch + 1) % opt.eval_every == 0:
            val_loss, fd = evaluate(opt, unet, ema_unet, ae, sched, val_loader, ref_stats)
            if hvd.rank() == 0:
                print(f"epoch {epoch}: val_loss {val_loss:.4f} FD {fd:.3f}")

        if hvd.rank() == 0 and (epoch + 1) % opt.save_every == 0:
            os.makedirs(opt.checkpoints_dir, exist_ok=True)
            torch.save({"unet": unet.state_dict(), "ema": ema_unet.state_dict(),
                        "optimizer": optimizer.state_dict(), "epoch": epoch},
                       os.path.join(opt.checkpoints_dir, f"ldm_{epoch:04d}.pt"))
        barrier()


if __name__ == "__main__":
    main()
