# FCOS training on a custom VOC-like dataset, Horovod version
# usage: horovodrun -np 4 python train_hvd.py --data ./data/widerface_voc --epochs 20
import argparse
import os
import time
import xml.etree.ElementTree as ET

import torch
import torchvision
from torchvision.models.detection import fcos_resnet50_fpn
from torchvision.transforms import functional as TF
from PIL import Image
import horovod.torch as hvd


CLASSES = ["__background__", "face"]


class VOCDataset(torch.utils.data.Dataset):
    def __init__(self, root, split, train=True):
        self.root = root
        self.train = train
        self.ids = open(os.path.join(root, "ImageSets", "Main", split + ".txt")).read().split()

    def __len__(self):
        return len(self.ids)

    def __getitem__(self, i):
        name = self.ids[i]
        img = Image.open(os.path.join(self.root, "JPEGImages", name + ".jpg")).convert("RGB")
        root = ET.parse(os.path.join(self.root, "Annotations", name + ".xml")).getroot()
        boxes, labels = [], []
        for obj in root.iter("object"):
            b = obj.find("bndbox")
            boxes.append([float(b.find(k).text) for k in ["xmin", "ymin", "xmax", "ymax"]])
            labels.append(CLASSES.index(obj.find("name").text))
        img = TF.to_tensor(img)
        boxes = torch.tensor(boxes, dtype=torch.float32).reshape(-1, 4)
        if self.train and torch.rand(1) < 0.5:
            img = img.flip(-1)
            boxes[:, [0, 2]] = img.shape[-1] - boxes[:, [2, 0]]
        return img, {"boxes": boxes, "labels": torch.tensor(labels, dtype=torch.int64)}


def collate(batch):
    return tuple(zip(*batch))


def parse_args():
    parser = argparse.ArgumentParser()
    parser.add_argument("--data", default="./data/widerface_voc")
    parser.add_argument("--epochs", type=int, default=20)
    parser.add_argument("--batch-size", type=int, default=4)
    parser.add_argument("--lr", type=float, default=0.0025, help="per-GPU lr")
    parser.add_argument("--warmup-iters", type=int, default=300)
    parser.add_argument("--seed", type=int, default=42)
    parser.add_argument("--workers", type=int, default=4)
    parser.add_argument("--save-dir", default="./checkpoints")
    parser.add_argument("--resume", default="")
    parser.add_argument("--test-only", action="store_true")
    args = parser.parse_args()
    # linear scaling rule
    args.lr = args.lr * hvd.size()
    return args


@torch.no_grad()
def evaluate(model, loader, device):
    model.eval()
    stats = torch.zeros(2)
    for images, targets in loader:
        outputs = model([im.to(device) for im in images])
        for out, t in zip(outputs, targets):
            stats[1] += len(t["boxes"])
            pred = out["boxes"][out["scores"] > 0.3].cpu()
            if len(pred) and len(t["boxes"]):
                stats[0] += (torchvision.ops.box_iou(t["boxes"], pred).max(1).values > 0.5).sum()
    stats = hvd.allreduce(stats, op=hvd.Sum, name="val_stats")
    return (stats[0] / stats[1].clamp(min=1)).item()


def main():
    args = parse_args()
    hvd.init()
    torch.manual_seed(args.seed + hvd.rank())
    if torch.cuda.is_available():
        torch.cuda.set_device(hvd.local_rank())
        device = torch.device("cuda", hvd.local_rank())
    else:
        device = torch.device("cpu")

    train_set = VOCDataset(args.data, "train", train=True)
    val_set = VOCDataset(args.data, "val", train=False)
    train_sampler = torch.utils.data.distributed.DistributedSampler(train_set, num_replicas=hvd.size(), rank=hvd.rank())
    val_sampler = torch.utils.data.distributed.DistributedSampler(val_set, num_replicas=hvd.size(), rank=hvd.rank(), shuffle=False)
    train_loader = torch.utils.data.DataLoader(train_set, batch_size=args.batch_size, sampler=train_sampler,
                                               num_workers=args.workers, collate_fn=collate, drop_last=True)
    val_loader = torch.utils.data.DataLoader(val_set, batch_size=2, sampler=val_sampler,
                                             num_workers=args.workers, collate_fn=collate)

    model = fcos_resnet50_fpn(weights=None, weights_backbone=None, num_classes=len(CLASSES)).to(device)
    optimizer = torch.optim.SGD(model.parameters(), lr=args.lr, momentum=0.9, weight_decay=1e-4)
    optimizer = hvd.DistributedOptimizer(optimizer, named_parameters=model.named_parameters())
    warmup = torch.optim.lr_scheduler.LinearLR(optimizer, start_factor=0.001, total_iters=args.warmup_iters)
    cosine = torch.optim.lr_scheduler.CosineAnnealingLR(optimizer, T_max=args.epochs * len(train_loader))
    scheduler = torch.optim.lr_scheduler.SequentialLR(optimizer, [warmup, cosine], milestones=[args.warmup_iters])

    start_epoch = 0
    if args.resume:
        ckpt = torch.load(args.resume, map_location="cpu")
        model.load_state_dict(ckpt["model"])
        optimizer.load_state_dict(ckpt["optimizer"])
        scheduler.load_state_dict(ckpt["scheduler"])
        start_epoch = ckpt["epoch"] + 1
        # make sure all workers continue from the same state
        hvd.broadcast_parameters(model.state_dict(), root_rank=0)
        hvd.broadcast_optimizer_state(optimizer, root_rank=0)

    if args.test_only:
        recall = evaluate(model, val_loader, device)
        if hvd.rank() == 0:
            print(f"recall@0.5: {recall:.4f}")
        return

    for epoch in range(start_epoch, args.epochs):
        model.train()
        train_sampler.set_epoch(epoch)
        t0 = time.time()
        for i, (images, targets) in enumerate(train_loader):
            images = [im.to(device) for im in images]
            targets = [{k: v.to(device) for k, v in t.items()} for t in targets]
            losses = model(images, targets)
            loss = sum(losses.values())
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            scheduler.step()
            if hvd.rank() == 0 and i % 50 == 0:
                print(f"epoch {epoch} it {i}/{len(train_loader)} loss {loss.item():.4f} "
                      f"cls {losses['classification'].item():.4f} reg {losses['bbox_regression'].item():.4f} "
                      f"lr {optimizer.param_groups[0]['lr']:.6f}")

        recall = evaluate(model, val_loader, device)
        if hvd.rank() == 0:
            print(f"epoch {epoch} done in {time.time() - t0:.0f}s, val recall@0.5 {recall:.4f}")
            os.makedirs(args.save_dir, exist_ok=True)
            torch.save({"model": model.state_dict(), "optimizer": optimizer.state_dict(),
                        "scheduler": scheduler.state_dict(), "epoch": epoch},
                       os.path.join(args.save_dir, f"fcos_epoch{epoch}.pth"))


if __name__ == "__main__":
    main()
