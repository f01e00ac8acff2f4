"""U-Net segmentation scaling runs (Perlmutter).

    srun -N 4 --ntasks-per-node 4 --gpus-per-node 4 -c 32 --cpu-bind=cores \
        python main.py --data-root $SCRATCH/tiles --epochs 20 --run-name strong_16
"""
import argparse
import time

import torch
import torch.nn.functional as F
import horovod.torch as hvd

from utils.threads import pin_threads
from utils.io import RunDir
from unetlab.data import make_loader
from unetlab.model import UNet
from unetlab.optim import build_optimizers


def get_args(argv=None):
    p = argparse.ArgumentParser()
    p.add_argument("--data-root", default=None, help="folder of .npy tiles; synthetic tiles if omitted")
    p.add_argument("--tile", type=int, default=128)
    p.add_argument("--batch-size", type=int, default=8, help="per GPU")
    p.add_argument("--lr", type=float, default=2e-4)
    p.add_argument("--encoder-lr-mult", type=float, default=0.1)
    p.add_argument("--epochs", type=int, default=20)
    p.add_argument("--cpus-per-task", type=int, default=32)
    p.add_argument("--run-name", default="debug")
    p.add_argument("--out", default="runs")
    return p.parse_args(argv)


def dice_stats(logits, target):
    pred = (logits.sigmoid() > 0.5).float()
    inter = (pred * target).sum()
    union = pred.sum() + target.sum()
    return torch.stack([inter, union]).detach().cpu()


def train(args):
    pin_threads(args.cpus_per_task)
    hvd.init()
    device = torch.device("cpu")
    if torch.cuda.is_available():
        torch.cuda.set_device(hvd.local_rank())
        device = torch.device("cuda", hvd.local_rank())

    run = RunDir(args.out, args.run_name, hvd.rank())
    train_loader, train_sampler = make_loader(args.data_root, "train", args.tile, args.batch_size,
                                              hvd.rank(), hvd.size())
    val_loader, _ = make_loader(args.data_root, "val", args.tile, args.batch_size,
                                hvd.rank(), hvd.size())

    model = UNet(in_ch=4, out_ch=1).to(device)
    optimizers = build_optimizers(model, lr=args.lr * hvd.size(),
                                  encoder_lr_mult=args.encoder_lr_mult)
    hvd.broadcast_parameters(model.state_dict(), root_rank=0)
    for opt in optimizers:
        hvd.broadcast_optimizer_state(opt, root_rank=0)

    for epoch in range(args.epochs):
        train_sampler.set_epoch(epoch)
        model.train()
        t0 = time.perf_counter()
        for step, (x, y) in enumerate(train_loader):
            x, y = x.to(device), y.to(device)
            for opt in optimizers:
                opt.zero_grad()
            loss = F.binary_cross_entropy_with_logits(model(x), y)
            loss.backward()
            for opt in optimizers:
                opt.step()
            run.log_step(epoch, step, loss.item())
        epoch_time = time.perf_counter() - t0

        model.eval()
        stats = torch.zeros(2)
        with torch.no_grad():
            for x, y in val_loader:
                stats += dice_stats(model(x.to(device)), y.to(device))
        stats = hvd.allreduce(stats, op=hvd.Sum, name="dice")
        dice = (2 * stats[0] / stats[1].clamp(min=1)).item()
        max_time = hvd.allreduce(torch.tensor(epoch_time), op=hvd.Max, name="epoch_time").item()

        run.print(f"epoch {epoch} dice {dice:.4f} epoch_time(max over ranks) {max_time:.2f}s")
        run.save({"epoch": epoch, "model": model.state_dict(),
                  "optimizers": [o.state_dict() for o in optimizers]}, "last.pt")
    run.close()


if __name__ == "__main__":
    train(get_args())
