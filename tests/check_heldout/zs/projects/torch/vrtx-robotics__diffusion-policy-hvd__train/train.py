"""Diffusion policy training (state-based Push-T / block-push) with Horovod + AMP."""
import argparse
import copy
import logging

import torch
import torch.nn.functional as F
import horovod.torch as hvd

from dp import DDPMSchedule, NoisePredNet
from dp.ckpt import latest_checkpoint, save_checkpoint
from dp.loader import build_datasets, build_loader

log = logging.getLogger("dp")


def get_args():
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--replay", default="data/pusht_replay.npz")
    ap.add_argument("--fake-data", action="store_true")
    ap.add_argument("--obs-horizon", type=int, default=2)
    ap.add_argument("--pred-horizon", type=int, default=16)
    ap.add_argument("--batch-size", type=int, default=256, help="per GPU")
    ap.add_argument("--lr", type=float, default=1e-4)
    ap.add_argument("--epochs", type=int, default=300)
    ap.add_argument("--ema", type=float, default=0.995)
    ap.add_argument("--amp", action="store_true")
    ap.add_argument("--compile", action="store_true")
    ap.add_argument("--workers", type=int, default=4)
    ap.add_argument("--out", default="outputs/dp")
    return ap.parse_args()


def main():
    args = get_args()
    hvd.init()
    logging.basicConfig(level=logging.INFO if hvd.rank() == 0 else logging.WARNING,
                        format="%(asctime)s %(name)s %(message)s")
    use_cuda = torch.cuda.is_available()
    if use_cuda:
        torch.cuda.set_device(hvd.local_rank())
    device = torch.device("cuda" if use_cuda else "cpu")
    torch.manual_seed(1 + hvd.rank())

    train_ds, val_ds = build_datasets(args.replay, args.obs_horizon, args.pred_horizon, args.fake_data)
    train_loader, train_sampler = build_loader(train_ds, args.batch_size, True, args.workers)
    val_loader, _ = build_loader(val_ds, args.batch_size, False, args.workers)

    obs_dim = train_ds.obs.shape[1] * args.obs_horizon
    act_dim = train_ds.actions.shape[1]
    model = NoisePredNet(obs_dim, act_dim, args.pred_horizon).to(device)
    sched = DDPMSchedule()

    optimizer = torch.optim.AdamW(model.parameters(), lr=args.lr * hvd.size(), weight_decay=1e-6)
    start_epoch = 0
    ckpt_path = latest_checkpoint(args.out)
    if ckpt_path:
        state = torch.load(ckpt_path, map_location="cpu", weights_only=False)
        model.load_state_dict(state["model"])
        optimizer.load_state_dict(state["optimizer"])
        start_epoch = state["epoch"] + 1
        log.info("resumed from %s", ckpt_path)
    hvd.broadcast_parameters(model.state_dict(), root_rank=0)
    hvd.broadcast_optimizer_state(optimizer, root_rank=0)
    optimizer = hvd.DistributedOptimizer(optimizer, named_parameters=model.named_parameters())
    ema = copy.deepcopy(model).requires_grad_(False)

    fwd = torch.compile(model) if args.compile else model
    scaler = torch.cuda.amp.GradScaler(enabled=args.amp and use_cuda)

    for epoch in range(start_epoch, args.epochs):
        model.train()
        train_sampler.set_epoch(epoch)
        for obs, act in train_loader:
            obs, act = obs.to(device, non_blocking=True), act.to(device, non_blocking=True)
            noise = torch.randn_like(act)
            t = torch.randint(0, sched.steps, (act.shape[0],), device=device)
            with torch.autocast(device.type, enabled=args.amp and use_cuda):
                loss = F.mse_loss(fwd(sched.add_noise(act, noise, t), t, obs), noise)
            optimizer.zero_grad()
            scaler.scale(loss).backward()
            optimizer.synchronize()
            scaler.unscale_(optimizer)
            torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
            with optimizer.skip_synchronize():
                scaler.step(optimizer)
            scaler.update()
            with torch.no_grad():
                for pe, p in zip(ema.parameters(), model.parameters()):
                    pe.lerp_(p, 1 - args.ema)

        model.eval()
        val_loss, n = 0.0, 0
        with torch.no_grad():
            for obs, act in val_loader:
                obs, act = obs.to(device), act.to(device)
                noise = torch.randn_like(act)
                t = torch.randint(0, sched.steps, (act.shape[0],), device=device)
                val_loss += F.mse_loss(ema(sched.add_noise(act, noise, t), t, obs), noise).item()
                n += 1
        val_loss = hvd.allreduce(torch.tensor(val_loss / max(n, 1)), name="val_loss").item()
        log.info("epoch %d train_loss %.4f val_loss %.4f", epoch, loss.item(), val_loss)

        save_checkpoint({"model": model.state_dict(), "ema": ema.state_dict(),
                         "optimizer": optimizer.state_dict(), "epoch": epoch,
                         "obs_norm": (train_ds.obs_n.lo, train_ds.obs_n.hi),
                         "act_norm": (train_ds.act_n.lo, train_ds.act_n.hi)}, args.out, epoch)


if __name__ == "__main__":
    main()
