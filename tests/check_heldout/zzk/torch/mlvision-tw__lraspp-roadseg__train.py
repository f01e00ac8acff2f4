"""Road-scene semantic segmentation with LR-ASPP MobileNetV3, distributed with Horovod.

The global batch is fixed (--global-batch) and split over the workers, so the learning
rate does not depend on the number of GPUs.

    horovodrun -np 4 python train.py --data-root /data/camvid --epochs 120
    horovodrun -np 4 python train.py --data-root /data/camvid --resume ckpt/last.pt
    horovodrun -np 4 python train.py --data-root /data/camvid --resume ckpt/last.pt --test-only
"""
import argparse
import glob
import math
import os
import time
from dataclasses import dataclass, asdict

import numpy as np
import torch
import torch.nn.functional as F
from PIL import Image
from torchvision.models.segmentation import lraspp_mobilenet_v3_large
from torchvision.transforms import functional as TF
import horovod.torch as hvd

IGNORE = 255


@dataclass
class Config:
    data_root: str = "/data/camvid"
    num_classes: int = 11
    global_batch: int = 32
    accum_steps: int = 1
    epochs: int = 120
    lr: float = 0.02
    weight_decay: float = 4e-5
    warmup_iters: int = 500
    crop: int = 512
    workers: int = 4
    ckpt_dir: str = "ckpt"
    save_every: int = 5
    resume: str = ""
    test_only: bool = False
    amp: bool = False


def get_config():
    parser = argparse.ArgumentParser()
    for name, value in asdict(Config()).items():
        flag = "--" + name.replace("_", "-")
        if isinstance(value, bool):
            parser.add_argument(flag, action="store_true")
        else:
            parser.add_argument(flag, type=type(value), default=value)
    return Config(**vars(parser.parse_args()))


class CamVid(torch.utils.data.Dataset):
    def __init__(self, root, split, crop=None):
        self.images = sorted(glob.glob(os.path.join(root, split, "*.png")))
        self.labels = [p.replace(f"{os.sep}{split}{os.sep}", f"{os.sep}{split}annot{os.sep}") for p in self.images]
        self.crop = crop

    def __len__(self):
        return len(self.images)

    def __getitem__(self, i):
        img = TF.to_tensor(Image.open(self.images[i]).convert("RGB"))
        lbl = torch.from_numpy(np.array(Image.open(self.labels[i]), dtype=np.int64))
        if self.crop:
            h, w = lbl.shape
            c = min(self.crop, h, w)
            y, x = np.random.randint(0, h - c + 1), np.random.randint(0, w - c + 1)
            img, lbl = img[:, y:y + c, x:x + c], lbl[y:y + c, x:x + c]
            if np.random.rand() < 0.5:
                img, lbl = img.flip(-1), lbl.flip(-1)
        return TF.normalize(img, [0.485, 0.456, 0.406], [0.229, 0.224, 0.225]), lbl


def epoch_shard(n, epoch, rank, world):
    """Same permutation on every worker (seeded by the epoch), cut to a multiple of the
    world size, then every worker takes a strided slice: disjoint, equal-sized shards."""
    perm = np.random.RandomState(1234 + epoch).permutation(n)
    perm = perm[: n - n % world]
    return perm[rank::world].tolist()


def lr_at(cfg, it, total):
    if it < cfg.warmup_iters:
        return cfg.lr * (it + 1) / cfg.warmup_iters
    return cfg.lr * (1 - (it - cfg.warmup_iters) / max(total - cfg.warmup_iters, 1)) ** 0.9


@torch.no_grad()
def evaluate(model, dataset, device, num_classes):
    model.eval()
    inter = torch.zeros(num_classes, dtype=torch.float64)
    union = torch.zeros(num_classes, dtype=torch.float64)
    for i in range(hvd.rank(), len(dataset), hvd.size()):
        img, lbl = dataset[i]
        pred = model(img[None].to(device))["out"].argmax(1)[0].cpu()
        valid = lbl != IGNORE
        for c in range(num_classes):
            p, t = (pred == c) & valid, (lbl == c) & valid
            inter[c] += (p & t).sum()
            union[c] += (p | t).sum()
    inter = hvd.allreduce(inter, op=hvd.Sum, name="inter")
    union = hvd.allreduce(union, op=hvd.Sum, name="union")
    iou = inter / union.clamp(min=1)
    return iou.mean().item(), iou


def main():
    cfg = get_config()
    hvd.init()
    torch.set_num_threads(max(1, os.cpu_count() // hvd.local_size()))
    if torch.cuda.is_available():
        torch.cuda.set_device(hvd.local_rank())
    device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
    is_root = hvd.rank() == 0

    assert cfg.global_batch % (hvd.size() * cfg.accum_steps) == 0, "global batch must split evenly"
    per_worker = cfg.global_batch // (hvd.size() * cfg.accum_steps)

    train_set = CamVid(cfg.data_root, "train", crop=cfg.crop)
    val_set = CamVid(cfg.data_root, "val")

    model = lraspp_mobilenet_v3_large(weights=None, weights_backbone=None, num_classes=cfg.num_classes).to(device)
    optimizer = torch.optim.SGD(model.parameters(), lr=cfg.lr, momentum=0.9, weight_decay=cfg.weight_decay, nesterov=True)
    optimizer = hvd.DistributedOptimizer(
        optimizer, named_parameters=model.named_parameters(), backward_passes_per_step=cfg.accum_steps,
        compression=hvd.Compression.fp16 if cfg.amp else hvd.Compression.none,
    )

    start_epoch, best_miou = 0, 0.0
    if cfg.resume and is_root:
        state = torch.load(cfg.resume, map_location="cpu")
        model.load_state_dict(state["model"])
        optimizer.load_state_dict(state["optimizer"])
        start_epoch, best_miou = state["epoch"] + 1, state["best_miou"]
    hvd.broadcast_parameters(model.state_dict(), root_rank=0)
    hvd.broadcast_optimizer_state(optimizer, root_rank=0)
    start_epoch, best_miou = hvd.broadcast_object((start_epoch, best_miou), root_rank=0, name="resume_meta")

    if cfg.test_only:
        miou, per_class = evaluate(model, val_set, device, cfg.num_classes)
        if is_root:
            print(f"val mIoU {miou:.4f}", [round(v, 3) for v in per_class.tolist()])
        return

    steps_per_epoch = (len(train_set) // hvd.size()) // (per_worker * cfg.accum_steps)
    total_iters = steps_per_epoch * cfg.epochs
    for epoch in range(start_epoch, cfg.epochs):
        model.train()
        shard = torch.utils.data.Subset(train_set, epoch_shard(len(train_set), epoch, hvd.rank(), hvd.size()))
        loader = torch.utils.data.DataLoader(shard, batch_size=per_worker, shuffle=False, drop_last=True,
                                             num_workers=cfg.workers, pin_memory=True)
        batches = iter(loader)
        t0, running = time.time(), 0.0
        for step in range(steps_per_epoch):
            it = epoch * steps_per_epoch + step
            for g in optimizer.param_groups:
                g["lr"] = lr_at(cfg, it, total_iters)
            optimizer.zero_grad()
            for _ in range(cfg.accum_steps):
                img, lbl = next(batches)
                out = model(img.to(device, non_blocking=True))["out"]
                loss = F.cross_entropy(out, lbl.to(device), ignore_index=IGNORE) / cfg.accum_steps
                loss.backward()
                running += loss.item()
            optimizer.step()
            if is_root and step % 50 == 0:
                print(f"ep {epoch} step {step}/{steps_per_epoch} loss {running / (step + 1):.4f} "
                      f"lr {optimizer.param_groups[0]['lr']:.5f}")

        miou, _ = evaluate(model, val_set, device, cfg.num_classes)
        if is_root:
            print(f"epoch {epoch}: val mIoU {miou:.4f} ({time.time() - t0:.0f}s)")
            best_miou = max(best_miou, miou)
            if (epoch + 1) % cfg.save_every == 0 or epoch + 1 == cfg.epochs:
                os.makedirs(cfg.ckpt_dir, exist_ok=True)
                torch.save({"model": model.state_dict(), "optimizer": optimizer.state_dict(),
                            "epoch": epoch, "best_miou": best_miou, "config": asdict(cfg)},
                           os.path.join(cfg.ckpt_dir, "last.pt"))


if __name__ == "__main__":
    main()
