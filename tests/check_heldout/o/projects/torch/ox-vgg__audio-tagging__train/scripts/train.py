"""Train CNN6 on AudioSet-balanced log-mels, data-parallel over Horovod workers.

Gradients are SUMMED over workers (op=hvd.Sum) rather than averaged: with the per-worker batch fixed, the
summed gradient of the per-worker mean loss is what a single GPU would get with an lr scaled by the number
of workers (plain SGD + momentum, no weight decay), so --lr is the single-GPU value and is not touched here.
"""
import argparse
import os
import sys
import time

sys.path.insert(0, os.path.abspath(os.path.join(os.path.dirname(__file__), os.pardir)))

import numpy as np
import torch
import torch.nn.functional as F
import horovod.torch as hvd

from audiotag import dist
from audiotag.cnn import CNN6
from audiotag.data import loader
from audiotag.ema import EMA
from audiotag.metrics import AverageMeter, mean_average_precision


def get_parser():
    p = argparse.ArgumentParser()
    p.add_argument("--feats", default="/datasets/audioset_logmel")
    p.add_argument("--n-classes", type=int, default=527)
    p.add_argument("--n-mels", type=int, default=64)
    p.add_argument("--width", type=int, default=64)
    p.add_argument("--batch-size", type=int, default=32, help="per worker")
    p.add_argument("--epochs", type=int, default=40)
    p.add_argument("--lr", type=float, default=0.01)
    p.add_argument("--clip", type=float, default=10.0)
    p.add_argument("--ema", type=float, default=0.9995)
    p.add_argument("--eval-every", type=int, default=2)
    p.add_argument("--workers", type=int, default=6)
    p.add_argument("--ckpt-dir", default="ckpt/cnn6")
    p.add_argument("--resume", action="store_true")
    p.add_argument("--seed", type=int, default=0)
    return p


@torch.no_grad()
def evaluate(net, val_loader, device):
    net.eval()
    scores, targets = [], []
    for x, y in val_loader:
        scores.append(torch.sigmoid(net(x.to(device))).cpu())
        targets.append(y)
    scores = dist.gather_cat(torch.cat(scores), "val_scores").numpy()
    targets = dist.gather_cat(torch.cat(targets), "val_targets").numpy()
    return mean_average_precision(scores, targets)


def main():
    args = get_parser().parse_args()
    world_size, args.local_rank, _ = dist.init()
    torch.manual_seed(args.seed)
    np.random.seed(args.seed)
    if torch.cuda.is_available():
        torch.cuda.set_device(dist.local_rank)
        torch.backends.cudnn.benchmark = True
    device = torch.device("cuda" if torch.cuda.is_available() else "cpu")

    train_loader, train_sampler = loader(args.feats, "train", args.batch_size, world_size, hvd.rank(), True,
                                         workers=args.workers, seed=args.seed)
    val_loader, _ = loader(args.feats, "eval", args.batch_size, world_size, hvd.rank(), False,
                           workers=args.workers)

    model = CNN6(args.n_mels, args.n_classes, args.width).to(device)
    optimizer = torch.optim.SGD(model.parameters(), lr=args.lr, momentum=0.9, nesterov=True)

    ckpt_file = os.path.join(args.ckpt_dir, "last.pt")
    start_epoch, best_map = 0, 0.0
    if args.resume and args.local_rank == 0 and os.path.exists(ckpt_file):
        state = torch.load(ckpt_file, map_location="cpu")
        model.load_state_dict(state["model"])
        optimizer.load_state_dict(state["optim"])
        start_epoch, best_map = state["epoch"], state["best_map"]
    start_epoch, best_map = hvd.broadcast_object([start_epoch, best_map], root_rank=0)
    hvd.broadcast_parameters(model.state_dict(), root_rank=0)
    hvd.broadcast_optimizer_state(optimizer, root_rank=0)

    optimizer = hvd.DistributedOptimizer(optimizer, named_parameters=model.named_parameters(), op=hvd.Sum)
    ema = EMA(model, args.ema)

    for epoch in range(start_epoch, args.epochs):
        model.train()
        train_sampler.set_epoch(epoch)
        meter, t0 = AverageMeter(), time.time()
        for x, y in train_loader:
            x, y = x.to(device, non_blocking=True), y.to(device, non_blocking=True)
            loss = F.binary_cross_entropy_with_logits(model(x), y)
            optimizer.zero_grad()
            loss.backward()
            optimizer.synchronize()
            torch.nn.utils.clip_grad_norm_(model.parameters(), args.clip)
            with optimizer.skip_synchronize():
                optimizer.step()
            ema.update(model)
            meter.update(loss.item(), x.size(0))
        if args.local_rank == 0:
            print(f"epoch {epoch} loss {meter.avg:.4f} {time.time() - t0:.0f}s")

        if (epoch + 1) % args.eval_every == 0 or epoch + 1 == args.epochs:
            val_map = evaluate(ema.shadow, val_loader, device)
            best_map = max(best_map, val_map)
            if args.local_rank == 0:
                print(f"  eval mAP (ema) {val_map:.4f} best {best_map:.4f}")
                os.makedirs(args.ckpt_dir, exist_ok=True)
                torch.save({"model": model.state_dict(), "optim": optimizer.state_dict(), "ema": ema.shadow.state_dict(),
                            "epoch": epoch + 1, "best_map": best_map}, ckpt_file)


if __name__ == "__main__":
    main()
