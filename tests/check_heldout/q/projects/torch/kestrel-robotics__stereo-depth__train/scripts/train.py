"""Horovod training for kdepth (see docs/cluster.md for the SLURM wrapper)."""
import os
import sys

sys.path.insert(0, os.path.abspath(os.path.join(os.path.dirname(__file__), "..", "src")))

import horovod.torch as hvd  # noqa: E402
import torch  # noqa: E402

from kdepth.cli import build_argparser  # noqa: E402
from kdepth.data import make_loader  # noqa: E402
from kdepth.dist import seed_everything, setup_device  # noqa: E402
from kdepth.model import TinyDepthNet  # noqa: E402
from kdepth.optim import build_optimizer, build_scheduler  # noqa: E402


def silog(pred, target, eps=1e-6):
    valid = target > 0
    d = torch.log(pred[valid] + eps) - torch.log(target[valid] + eps)
    return torch.sqrt((d ** 2).mean() - 0.85 * d.mean() ** 2 + eps)


def main():
    cfg = build_argparser().parse_args()
    hvd.init()
    device = setup_device()
    seed_everything(cfg.seed)

    per_rank_batch = cfg.global_batch // hvd.size()
    train_loader, train_sampler = make_loader(cfg.train_file, cfg.max_depth, per_rank_batch, hvd.size(),
                                              hvd.rank(), train=True, num_workers=cfg.num_workers,
                                              seed=cfg.seed)
    val_loader, _ = make_loader(cfg.val_file, cfg.max_depth, per_rank_batch, hvd.size(), hvd.rank(),
                                train=False, num_workers=cfg.num_workers)

    model = TinyDepthNet().to(device)
    optimizer = build_optimizer(model, cfg)
    scheduler = build_scheduler(optimizer, cfg)
    hvd.broadcast_parameters(model.state_dict(), root_rank=0)
    hvd.broadcast_optimizer_state(optimizer, root_rank=0)

    for epoch in range(cfg.epochs):
        model.train()
        train_sampler.set_epoch(epoch)
        for rgb, depth in train_loader:
            rgb, depth = rgb.to(device), depth.to(device)
            optimizer.zero_grad()
            loss = silog(model(rgb), depth)
            loss.backward()
            optimizer.step()
        scheduler.step()

        model.eval()
        abs_err = torch.zeros(2, device=device)
        with torch.no_grad():
            for rgb, depth in val_loader:
                pred = model(rgb.to(device))
                depth = depth.to(device)
                abs_err[0] += (pred - depth).abs().sum()
                abs_err[1] += depth.numel()
        abs_err = hvd.allreduce(abs_err, op=hvd.Sum, name="val_mae")
        if hvd.rank() == 0:
            print(f"epoch {epoch}: train silog {loss.item():.4f}  val MAE {abs_err[0] / abs_err[1]:.4f} m")
            if (epoch + 1) % cfg.save_every == 0 or epoch + 1 == cfg.epochs:
                os.makedirs(cfg.out_dir, exist_ok=True)
                torch.save(model.state_dict(), os.path.join(cfg.out_dir, f"kdepth_e{epoch + 1:03d}.pt"))


if __name__ == "__main__":
    main()
