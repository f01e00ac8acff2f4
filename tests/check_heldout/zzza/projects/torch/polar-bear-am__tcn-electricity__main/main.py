import argparse
import os

import torch
import horovod.torch as hvd
from torch.utils.data import DataLoader, Subset

from tcn.model import TCN
from tcn.data import load_electricity, build, contiguous_block
from tcn.engine import train_one_epoch, evaluate
from tcn.hvd_utils import init_horovod, restore_and_sync

GLOBAL_BATCH = 256


def cli():
    p = argparse.ArgumentParser("tcn-electricity")
    p.add_argument("--data", default="", help="csv, hours x series")
    p.add_argument("--window", type=int, default=168)
    p.add_argument("--horizon", type=int, default=24)
    p.add_argument("--test-hours", type=int, default=24 * 28)
    p.add_argument("--epochs", type=int, default=40)
    p.add_argument("--lr", type=float, default=2e-3, help="lr for the global batch of 256")
    p.add_argument("--amp", action="store_true")
    p.add_argument("--save-every", type=int, default=5)
    p.add_argument("--outdir", default="out")
    p.add_argument("--resume", default="")
    return p.parse_args()


def main(cfg):
    device = init_horovod()
    torch.manual_seed(0)
    arr = load_electricity(cfg.data)
    train_ds, test_ds, _ = build(arr, cfg.window, cfg.horizon, cfg.test_hours)
    my_part = Subset(train_ds, contiguous_block(len(train_ds), hvd.rank(), hvd.size()))
    loader = DataLoader(my_part, batch_size=GLOBAL_BATCH // hvd.size(), shuffle=True, drop_last=True)

    model = TCN(arr.shape[1], horizon=cfg.horizon).to(device)
    optimizer = hvd.DistributedOptimizer(torch.optim.Adam(model.parameters(), lr=cfg.lr),
                                         named_parameters=model.named_parameters())
    start = restore_and_sync(model, optimizer, cfg.resume)
    scaler = torch.amp.GradScaler(enabled=cfg.amp and device.type == "cuda")
    sched = torch.optim.lr_scheduler.CosineAnnealingLR(optimizer, T_max=cfg.epochs, last_epoch=-1)
    for _ in range(start):
        sched.step()

    for epoch in range(start, cfg.epochs):
        tr = train_one_epoch(model, loader, optimizer, scaler, device, cfg.amp and device.type == "cuda")
        sched.step()
        if hvd.rank() != 0:
            continue
        # the test set is small: rank 0 scores all of it
        m = evaluate(model, DataLoader(test_ds, batch_size=512), device)
        print(f"epoch {epoch:3d} train_l1 {tr:.4f} test_mae {m['mae']:.4f} test_mape {m['mape']:.2f}%")
        if (epoch + 1) % cfg.save_every == 0 or epoch + 1 == cfg.epochs:
            os.makedirs(cfg.outdir, exist_ok=True)
            torch.save({"model": model.state_dict(), "optimizer": optimizer.state_dict(), "epoch": epoch},
                       os.path.join(cfg.outdir, "tcn_last.pt"))


if __name__ == "__main__":
    main(cli())
