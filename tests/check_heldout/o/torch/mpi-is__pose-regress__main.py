"""PoseNet-style camera relocalisation on 7-Scenes, Horovod data parallel.

The global batch is fixed (cfg.global_batch) and divided among the workers, so the optimisation is the
same whatever the number of GPUs and the learning rate stays the tuned single-node value.
"""
import argparse

import torch
import horovod.torch as hvd

from posereg import TrainConfig
from posereg.data import Frames
from posereg.engine import train_one_epoch, evaluate_full
from posereg.net import PoseNet
from posereg.utils import set_seed, save


def cli():
    ap = argparse.ArgumentParser()
    ap.add_argument("--data")
    ap.add_argument("--out-dir")
    ap.add_argument("--global-batch", type=int)
    ap.add_argument("--lr", type=float)
    ap.add_argument("--epochs", type=int)
    ap.add_argument("--eval-every", type=int)
    ap.add_argument("--seed", type=int)
    a = ap.parse_args()
    return TrainConfig().update(data=a.data, out_dir=a.out_dir, global_batch=a.global_batch, lr=a.lr,
                                epochs=a.epochs, eval_every=a.eval_every, seed=a.seed)


def main():
    cfg = cli()
    hvd.init()
    world_size, rank = hvd.size(), hvd.rank()
    set_seed(cfg.seed)
    if torch.cuda.is_available():
        torch.cuda.set_device(hvd.local_rank())
    device = torch.device("cuda" if torch.cuda.is_available() else "cpu")

    assert cfg.global_batch % world_size == 0, "global batch must be divisible by the number of workers"
    batch_size = cfg.global_batch // world_size

    train = Frames(cfg.data, "train")
    test = Frames(cfg.data, "test") if rank == 0 else None

    model = PoseNet(cfg.channels).to(device)
    optimizer = torch.optim.Adam(model.parameters(), lr=cfg.lr, weight_decay=cfg.weight_decay)
    optimizer = hvd.DistributedOptimizer(optimizer, named_parameters=model.named_parameters())
    hvd.broadcast_parameters(model.state_dict(), root_rank=0)
    hvd.broadcast_optimizer_state(optimizer, root_rank=0)

    best = float("inf")
    for epoch in range(cfg.epochs):
        loss, lr, secs = train_one_epoch(model, optimizer, train, cfg, epoch, world_size, rank, batch_size, device)
        hvd.join()
        if rank != 0:
            continue
        print(f"epoch {epoch:3d} loss {loss:.4f} lr {lr:.2e} ({secs:.1f}s)")
        if (epoch + 1) % cfg.eval_every == 0 or epoch + 1 == cfg.epochs:
            t_err, r_err = evaluate_full(model, test, device)
            print(f"  test median error: {t_err:.3f} m, {r_err:.2f} deg")
            if t_err < best:
                best = t_err
                save(model, optimizer, epoch + 1, {"t_err": t_err, "r_err": r_err}, cfg.out_dir)


if __name__ == "__main__":
    main()
