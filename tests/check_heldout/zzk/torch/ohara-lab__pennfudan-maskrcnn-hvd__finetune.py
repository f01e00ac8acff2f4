# -*- coding: utf-8 -*-
"""
TorchVision instance segmentation finetuning tutorial (PennFudan pedestrians), made to run
on several GPUs with Horovod for our lab cluster.

    horovodrun -np 4 -H localhost:4 python finetune.py --data PennFudanPed --epochs 10
"""
import argparse
import math
import os
import sys
import time

import numpy as np
import torch
import torchvision
from PIL import Image
from torchvision.models.detection.faster_rcnn import FastRCNNPredictor
from torchvision.models.detection.mask_rcnn import MaskRCNNPredictor
from torchvision.transforms import functional as F
import horovod.torch as hvd

hvd.init()
if torch.cuda.is_available():
    torch.cuda.set_device(hvd.local_rank())
DEVICE = torch.device("cuda") if torch.cuda.is_available() else torch.device("cpu")


def log(*a):
    if hvd.rank() == 0:
        print(*a, flush=True)


class PennFudanDataset(torch.utils.data.Dataset):
    def __init__(self, root, train):
        self.root = root
        self.train = train
        self.imgs = list(sorted(os.listdir(os.path.join(root, "PNGImages"))))
        self.masks = list(sorted(os.listdir(os.path.join(root, "PedMasks"))))

    def __getitem__(self, idx):
        img = Image.open(os.path.join(self.root, "PNGImages", self.imgs[idx])).convert("RGB")
        mask = np.array(Image.open(os.path.join(self.root, "PedMasks", self.masks[idx])))
        obj_ids = np.unique(mask)[1:]
        masks = mask == obj_ids[:, None, None]
        boxes = []
        for m in masks:
            pos = np.where(m)
            boxes.append([np.min(pos[1]), np.min(pos[0]), np.max(pos[1]), np.max(pos[0])])
        boxes = torch.as_tensor(boxes, dtype=torch.float32)
        target = {
            "boxes": boxes,
            "labels": torch.ones((len(obj_ids),), dtype=torch.int64),
            "masks": torch.as_tensor(masks, dtype=torch.uint8),
            "image_id": idx,
            "area": (boxes[:, 3] - boxes[:, 1]) * (boxes[:, 2] - boxes[:, 0]),
            "iscrowd": torch.zeros((len(obj_ids),), dtype=torch.int64),
        }
        img = F.to_tensor(img)
        if self.train and torch.rand(1).item() < 0.5:
            img = img.flip(-1)
            target["masks"] = target["masks"].flip(-1)
            w = img.shape[-1]
            target["boxes"][:, [0, 2]] = w - target["boxes"][:, [2, 0]]
        return img, target

    def __len__(self):
        return len(self.imgs)


def collate_fn(batch):
    return tuple(zip(*batch))


def get_model_instance_segmentation(num_classes, pretrained):
    model = torchvision.models.detection.maskrcnn_resnet50_fpn(weights="DEFAULT" if pretrained else None,
                                                               weights_backbone=None)
    in_features = model.roi_heads.box_predictor.cls_score.in_features
    model.roi_heads.box_predictor = FastRCNNPredictor(in_features, num_classes)
    in_features_mask = model.roi_heads.mask_predictor.conv5_mask.in_channels
    model.roi_heads.mask_predictor = MaskRCNNPredictor(in_features_mask, 256, num_classes)
    return model


def train_one_epoch(model, optimizer, scaler, data_loader, epoch, warmup, max_norm):
    model.train()
    for it, (images, targets) in enumerate(data_loader):
        images = [img.to(DEVICE) for img in images]
        targets = [{k: v.to(DEVICE) if torch.is_tensor(v) else v for k, v in t.items()} for t in targets]
        with torch.autocast(DEVICE.type, enabled=scaler.is_enabled()):
            loss_dict = model(images, targets)
            losses = sum(loss for loss in loss_dict.values())
        if not math.isfinite(losses.item()):
            print(f"[rank {hvd.rank()}] loss is {losses.item()}, stopping", loss_dict)
            sys.exit(1)

        optimizer.zero_grad()
        scaler.scale(losses).backward()
        # gradients must be all-reduced before they are unscaled and clipped
        optimizer.synchronize()
        scaler.unscale_(optimizer)
        torch.nn.utils.clip_grad_norm_(model.parameters(), max_norm)
        with optimizer.skip_synchronize():
            scaler.step(optimizer)
        scaler.update()
        if warmup is not None:
            warmup.step()
        if it % 10 == 0:
            log(f"Epoch [{epoch}] [{it}/{len(data_loader)}] loss {losses.item():.4f} "
                + " ".join(f"{k} {v.item():.3f}" for k, v in loss_dict.items()))


@torch.inference_mode()
def evaluate(model, data_loader):
    """Mean mask IoU of the best-matching prediction per pedestrian, averaged over workers."""
    model.eval()
    ious = []
    for images, targets in data_loader:
        outputs = model([img.to(DEVICE) for img in images])
        for out, tgt in zip(outputs, targets):
            gt = tgt["masks"].bool()
            pred = (out["masks"][:, 0] > 0.5).cpu()
            if len(pred) == 0:
                ious.extend([0.0] * len(gt))
                continue
            inter = (gt[:, None] & pred[None]).flatten(2).sum(-1).float()
            union = (gt[:, None] | pred[None]).flatten(2).sum(-1).float()
            ious.extend((inter / union.clamp(min=1)).max(1).values.tolist())
    stats = hvd.allreduce(torch.tensor([sum(ious), len(ious)], dtype=torch.float64), op=hvd.Sum, name="miou")
    return (stats[0] / stats[1]).item()


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--data", default="PennFudanPed")
    parser.add_argument("--epochs", type=int, default=10)
    parser.add_argument("--batch-size", type=int, default=2, help="per GPU")
    parser.add_argument("--base-lr", type=float, default=0.005, help="single-GPU lr of the tutorial")
    parser.add_argument("--pretrained", action="store_true", help="start from COCO weights (downloads them)")
    parser.add_argument("--amp", action="store_true")
    parser.add_argument("--max-norm", type=float, default=10.0)
    parser.add_argument("--out", default="pennfudan_maskrcnn.pth")
    args = parser.parse_args()

    # same split on every worker: fixed generator
    full_train = PennFudanDataset(args.data, train=True)
    full_test = PennFudanDataset(args.data, train=False)
    indices = torch.randperm(len(full_train), generator=torch.Generator().manual_seed(0)).tolist()
    dataset = torch.utils.data.Subset(full_train, indices[:-50])
    dataset_test = torch.utils.data.Subset(full_test, indices[-50:])

    train_sampler = torch.utils.data.distributed.DistributedSampler(dataset, num_replicas=hvd.size(), rank=hvd.rank(), shuffle=True, seed=0)
    test_sampler = torch.utils.data.distributed.DistributedSampler(dataset_test, num_replicas=hvd.size(), rank=hvd.rank(), shuffle=False)
    data_loader = torch.utils.data.DataLoader(dataset, batch_size=args.batch_size, sampler=train_sampler,
                                              num_workers=2, collate_fn=collate_fn)
    data_loader_test = torch.utils.data.DataLoader(dataset_test, batch_size=1, sampler=test_sampler,
                                                   num_workers=2, collate_fn=collate_fn)

    model = get_model_instance_segmentation(2, args.pretrained).to(DEVICE)
    params = [p for p in model.parameters() if p.requires_grad]
    optimizer = torch.optim.SGD(params, lr=args.base_lr * hvd.size(), momentum=0.9, weight_decay=0.0005)
    optimizer = hvd.DistributedOptimizer(optimizer, named_parameters=model.named_parameters())
    hvd.broadcast_parameters(model.state_dict(), root_rank=0)
    hvd.broadcast_optimizer_state(optimizer, root_rank=0)

    lr_scheduler = torch.optim.lr_scheduler.StepLR(optimizer, step_size=3, gamma=0.1)
    scaler = torch.cuda.amp.GradScaler(enabled=args.amp)

    for epoch in range(args.epochs):
        train_sampler.set_epoch(epoch)
        warmup = None
        if epoch == 0:
            warmup = torch.optim.lr_scheduler.LinearLR(optimizer, start_factor=0.001,
                                                       total_iters=max(1, min(1000, len(data_loader) - 1)))
        t0 = time.time()
        train_one_epoch(model, optimizer, scaler, data_loader, epoch, warmup, args.max_norm)
        lr_scheduler.step()
        miou = evaluate(model, data_loader_test)
        log(f"epoch {epoch}: mask mIoU {miou:.4f} ({time.time() - t0:.0f}s)")
        if hvd.rank() == 0:
            torch.save(model.state_dict(), args.out)

    log("That's it!")


if __name__ == "__main__":
    main()
