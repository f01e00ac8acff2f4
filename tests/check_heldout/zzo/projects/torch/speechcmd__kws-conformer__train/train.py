"""Keyword spotting (Speech Commands v2, 12 classes) with a tiny Conformer.

The global batch is fixed (GLOBAL_BATCH) and split over the Horovod workers, so the
learning rate is the single-GPU one whatever the number of workers.
"""
import os
import sys

import horovod.torch as hvd
import torch
import torch.nn.functional as F
from torch.utils.data import DataLoader, Subset

from kws import dist_utils
from kws.data import KeywordFeatures, epoch_partition
from kws.model import TinyConformer
from kws.schedule import warmup_cosine

CONFIG = dict(train="features/train.npz", valid="features/valid.npz", ckpt="ckpt/kws_conformer.pt",
              global_batch=512, lr=1e-3, epochs=60, warmup_epochs=2, label_smoothing=0.1, seed=0)


def parse_overrides(argv):
    cfg = dict(CONFIG)
    for item in argv:
        key, value = item.split("=", 1)
        cfg[key] = type(CONFIG[key])(value)
    return cfg


@dist_utils.rank_zero_only
def save(model, optimizer, epoch, best, path):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    torch.save({"model": model.state_dict(), "optimizer": optimizer.state_dict(),
                "epoch": epoch, "best": best}, path)


def run(cfg):
    device = dist_utils.setup()
    torch.manual_seed(cfg["seed"])
    batch = cfg["global_batch"] // hvd.size()

    train_set = KeywordFeatures(cfg["train"], augment=True)
    valid_set = KeywordFeatures(cfg["valid"])
    valid_shard = Subset(valid_set, range(hvd.rank(), len(valid_set), hvd.size()))
    valid_loader = DataLoader(valid_shard, batch_size=256)

    model = TinyConformer().to(device)
    optimizer = torch.optim.AdamW(model.parameters(), lr=cfg["lr"], weight_decay=0.05)
    optimizer = hvd.DistributedOptimizer(optimizer, named_parameters=model.named_parameters(),
                                         op=hvd.Average)

    meta = {"epoch": 0, "best": 0.0}
    if hvd.rank() == 0 and os.path.exists(cfg["ckpt"]):
        state = torch.load(cfg["ckpt"], map_location="cpu")
        model.load_state_dict(state["model"])
        optimizer.load_state_dict(state["optimizer"])
        meta = {"epoch": state["epoch"] + 1, "best": state["best"]}
    meta = hvd.broadcast_object(meta, root_rank=0, name="resume_meta")
    hvd.broadcast_parameters(model.state_dict(), root_rank=0)
    hvd.broadcast_optimizer_state(optimizer, root_rank=0)

    steps_per_epoch = (len(train_set) // hvd.size()) // batch
    set_lr = warmup_cosine(optimizer, cfg["lr"], cfg["warmup_epochs"] * steps_per_epoch,
                           cfg["epochs"] * steps_per_epoch)

    best = meta["best"]
    for epoch in range(meta["epoch"], cfg["epochs"]):
        idx = epoch_partition(len(train_set), hvd.rank(), hvd.size(), epoch, cfg["seed"])
        loader = DataLoader(Subset(train_set, idx), batch_size=batch, shuffle=False, drop_last=True,
                            num_workers=4)
        model.train()
        for step, (x, y) in enumerate(loader):
            lr = set_lr(epoch * steps_per_epoch + step)
            loss = F.cross_entropy(model(x.to(device)), y.to(device), label_smoothing=cfg["label_smoothing"])
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
        dist_utils.log(f"epoch {epoch} loss {loss.item():.4f} lr {lr:.2e}")

        model.eval()
        correct = total = 0
        with torch.no_grad():
            for x, y in valid_loader:
                correct += (model(x.to(device)).argmax(1).cpu() == y).sum().item()
                total += len(y)
        correct, total = dist_utils.global_sum([correct, total], name="valid_acc")
        acc = correct / total
        dist_utils.log(f"epoch {epoch} valid acc {acc:.4f}")
        if acc > best:
            best = acc
        save(model, optimizer, epoch, best, cfg["ckpt"])


if __name__ == "__main__":
    run(parse_overrides(sys.argv[1:]))
