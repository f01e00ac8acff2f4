import argparse
import time

import torch
from torch.utils.data import DataLoader
import horovod.torch as hvd

from recipe.data import RecipeImagePairs, ShardSampler
from recipe.model import Im2Recipe, hardest_negative_triplet, recall_median_rank
from recipe.utils import AverageMeter, restore_or_init, save_checkpoint


def train_epoch(model, loader, optimizer, epoch, device, print_freq):
    model.train()
    loader.sampler.set_epoch(epoch)
    meter = AverageMeter()
    tic = time.time()
    for i, (img, ids) in enumerate(loader):
        a, b = model(img.to(device), ids.to(device))
        loss = hardest_negative_triplet(a, b)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        meter.update(loss.item(), img.size(0))
        if hvd.rank() == 0 and i % print_freq == 0:
            print(f"Epoch [{epoch}][{i}/{len(loader)}] loss {meter.avg:.4f} {time.time() - tic:.1f}s")
    return meter.avg


def validate(model, loader, device):
    """Recall on each worker's block of the val split (the usual 1k-subset protocol)."""
    model.eval()
    imgs, txts = [], []
    with torch.no_grad():
        for img, ids in loader:
            a, b = model(img.to(device), ids.to(device))
            imgs.append(a)
            txts.append(b)
    local = recall_median_rank(torch.cat(imgs), torch.cat(txts))
    return {k: hvd.allreduce(torch.tensor(v), op=hvd.Sum, name=f"val_{k}").item()
            for k, v in local.items()}


def run(args):
    hvd.init()
    torch.manual_seed(args.seed + hvd.rank())
    if torch.cuda.is_available():
        torch.cuda.set_device(hvd.local_rank())
        device = torch.device("cuda")
    else:
        device = torch.device("cpu")

    train_set = RecipeImagePairs(args.data, "train")
    val_set = RecipeImagePairs(args.data, "val")
    train_loader = DataLoader(train_set, batch_size=args.batch_size,
                              sampler=ShardSampler(len(train_set), hvd.rank(), hvd.size(), args.seed),
                              num_workers=args.workers, drop_last=True)
    val_loader = DataLoader(val_set, batch_size=args.batch_size,
                            sampler=ShardSampler(len(val_set), hvd.rank(), hvd.size()))

    model = Im2Recipe(train_set.images.shape[1]).to(device)
    optimizer = torch.optim.Adam(model.parameters(), lr=args.lr * hvd.size())
    start_epoch = restore_or_init(model, optimizer, args.ckpt_dir)
    optimizer = hvd.DistributedOptimizer(optimizer, named_parameters=model.named_parameters())
    scheduler = torch.optim.lr_scheduler.StepLR(optimizer, step_size=args.lr_step, gamma=0.1)

    best = float("inf")
    for epoch in range(start_epoch, args.epochs):
        train_epoch(model, train_loader, optimizer, epoch, device, args.print_freq)
        scheduler.step()
        metrics = validate(model, val_loader, device)
        is_best = metrics["medR"] < best
        best = min(best, metrics["medR"])
        if hvd.rank() == 0:
            print(f"* epoch {epoch} val " + " ".join(f"{k} {v:.3f}" for k, v in metrics.items()))
        save_checkpoint({"epoch": epoch, "model": model.state_dict(),
                         "optimizer": optimizer.state_dict(), "best_medR": best},
                        args.ckpt_dir, is_best)


def parse():
    p = argparse.ArgumentParser(description="im2recipe retrieval (Horovod)")
    p.add_argument("--data", default="data/recipe1m_feats")
    p.add_argument("--ckpt-dir", default="snapshots")
    p.add_argument("--epochs", type=int, default=40)
    p.add_argument("--batch-size", type=int, default=160)
    p.add_argument("--lr", type=float, default=1e-4)
    p.add_argument("--lr-step", type=int, default=20)
    p.add_argument("--workers", type=int, default=4)
    p.add_argument("--print-freq", type=int, default=20)
    p.add_argument("--seed", type=int, default=1234)
    return p.parse_args()


if __name__ == "__main__":
    run(parse())
