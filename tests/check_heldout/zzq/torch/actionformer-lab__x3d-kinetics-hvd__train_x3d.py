"""X3D-XS on Kinetics-400 (mini) with Horovod, AMP and gradient accumulation."""
import argparse
import os

import torch
import torch.nn as nn
import horovod.torch as hvd
from torch.utils.data import DataLoader

from x3d.model import x3d_xs
from x3d.video_io import KineticsVideos
from utils.dist import init_distributed, rank_subset, gather_predictions
from utils.logger import get_logger
from utils.ckpt import save_checkpoint, load_checkpoint


def get_args():
    p = argparse.ArgumentParser()
    p.add_argument("--classes", type=int, default=40)
    p.add_argument("--train-videos", type=int, default=800)
    p.add_argument("--val-videos", type=int, default=96)
    p.add_argument("--batch-size", type=int, default=8)
    p.add_argument("--accum-steps", type=int, default=2)
    p.add_argument("--base-lr", type=float, default=0.1, help="lr for a global batch of 256")
    p.add_argument("--epochs", type=int, default=100)
    p.add_argument("--warmup-epochs", type=int, default=5)
    p.add_argument("--num-clips", type=int, default=4, help="temporal clips at test time")
    p.add_argument("--resume", default="")
    p.add_argument("--output", default="out/x3d_xs")
    return p.parse_args()


def adjust_lr(optimizer, peak_lr, epoch, it, iters, warmup):
    t = epoch + it / iters
    lr = peak_lr * t / warmup if t < warmup else peak_lr * (0.1 ** (int(t) // 40))
    for g in optimizer.param_groups:
        g["lr"] = lr


@torch.no_grad()
def test_multiclip(model, dataset, video_ids, num_clips, device):
    model.eval()
    preds = {}
    for vid in video_ids:
        clips = torch.stack([dataset.clip(vid, s) for s in dataset.uniform_starts(num_clips)])
        preds[vid] = model(clips.to(device)).softmax(-1).mean(0).argmax().item()
    preds = gather_predictions(preds)
    hits = sum(int(p == (dataset.offset + v) % dataset.num_classes) for v, p in preds.items())
    return hits / len(preds)


def main():
    args = get_args()
    init_distributed()
    log = get_logger(hvd.rank())
    use_amp = torch.cuda.is_available()
    device = torch.device("cuda" if use_amp else "cpu")

    train_set = KineticsVideos(args.train_videos, args.classes)
    val_set = KineticsVideos(args.val_videos, args.classes, offset=100_000)
    loader = DataLoader(rank_subset(train_set, seed=0), batch_size=args.batch_size,
                        shuffle=True, drop_last=True, num_workers=2)
    val_ids = list(range(len(val_set)))[hvd.rank()::hvd.size()]

    model = x3d_xs(args.classes).to(device)
    global_batch = args.batch_size * args.accum_steps * hvd.size()
    peak_lr = args.base_lr * global_batch / 256
    optimizer = torch.optim.SGD(model.parameters(), lr=peak_lr, momentum=0.9, weight_decay=5e-5)
    scaler = torch.amp.GradScaler("cuda", enabled=use_amp)

    start_epoch = 0
    if args.resume and os.path.exists(args.resume):
        start_epoch = load_checkpoint(args.resume, model, optimizer, scaler)
    hvd.broadcast_parameters(model.state_dict(), root_rank=0)
    hvd.broadcast_optimizer_state(optimizer, root_rank=0)

    optimizer = hvd.DistributedOptimizer(optimizer, named_parameters=model.named_parameters(),
                                         backward_passes_per_step=args.accum_steps)
    criterion = nn.CrossEntropyLoss(label_smoothing=0.1)

    # whole accumulation windows only, so every rank runs the same number of allreduces
    iters = len(loader) - len(loader) % args.accum_steps
    for epoch in range(start_epoch, args.epochs):
        model.train()
        optimizer.zero_grad()
        for it, (x, y) in zip(range(iters), loader):
            adjust_lr(optimizer, peak_lr, epoch, it, iters, args.warmup_epochs)
            x, y = x.to(device, non_blocking=True), y.to(device, non_blocking=True)
            with torch.autocast(device.type, enabled=use_amp):
                loss = criterion(model(x), y) / args.accum_steps
            scaler.scale(loss).backward()
            if (it + 1) % args.accum_steps == 0:
                optimizer.synchronize()
                scaler.unscale_(optimizer)
                nn.utils.clip_grad_norm_(model.parameters(), 1.0)
                with optimizer.skip_synchronize():
                    scaler.step(optimizer)
                scaler.update()
                optimizer.zero_grad()
        acc = test_multiclip(model, val_set, val_ids, args.num_clips, device)
        log.info("epoch %3d  loss %.4f  val video@1 %.4f", epoch, loss.item() * args.accum_steps, acc)
        save_checkpoint(os.path.join(args.output, "last.pt"), model, optimizer, scaler, epoch)


if __name__ == "__main__":
    main()
