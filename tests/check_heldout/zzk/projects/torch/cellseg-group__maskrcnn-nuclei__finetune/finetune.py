"""Fine-tune Mask R-CNN on DSB2018 nuclei with Horovod.

    horovodrun -np 4 python finetune.py --data data/stage1_train --weights weights/maskrcnn_coco.pth
"""
import argparse
import logging
import os

import torch
import torchvision
from torchvision.models.detection.faster_rcnn import FastRCNNPredictor
from torchvision.models.detection.mask_rcnn import MaskRCNNPredictor
import horovod.torch as hvd

from nuclei import dist
from nuclei.data import NucleiDataset, collate, train_val_ids, worker_split
from nuclei.engine import evaluate, train_one_epoch
from nuclei.sched import WarmupPolyLR

log = logging.getLogger("finetune")


def get_args():
    p = argparse.ArgumentParser(description=__doc__)
    p.add_argument("--data", default="data/stage1_train")
    p.add_argument("--weights", default="", help="COCO Mask R-CNN state dict to start from")
    p.add_argument("--epochs", type=int, default=30)
    p.add_argument("--batch-size", type=int, default=2, help="images per GPU")
    p.add_argument("--lr", type=float, default=0.0025, help="lr of one GPU, multiplied by the number of workers")
    p.add_argument("--warmup-iters", type=int, default=200)
    p.add_argument("--warmup-factor", type=float, default=0.001)
    p.add_argument("--poly-power", type=float, default=0.9)
    p.add_argument("--seed", type=int, default=7)
    p.add_argument("--output-dir", default="runs/nuclei")
    p.add_argument("--resume", default="")
    p.add_argument("--test-only", action="store_true")
    return p.parse_args()


def build_model(weights):
    model = torchvision.models.detection.maskrcnn_resnet50_fpn(weights=None, weights_backbone=None,
                                                               box_detections_per_img=300)
    if weights:
        model.load_state_dict(torch.load(weights, map_location="cpu"))
    in_features = model.roi_heads.box_predictor.cls_score.in_features
    model.roi_heads.box_predictor = FastRCNNPredictor(in_features, 2)
    model.roi_heads.mask_predictor = MaskRCNNPredictor(256, 256, 2)
    return model


def main():
    args = get_args()
    device = dist.setup(args.seed)

    train_ids, val_ids = train_val_ids(args.data)
    my_ids = worker_split(train_ids, hvd.rank(), hvd.size())
    train_set = NucleiDataset(args.data, my_ids, train=True)
    val_set = NucleiDataset(args.data, val_ids)
    train_loader = torch.utils.data.DataLoader(train_set, batch_size=args.batch_size, shuffle=True,
                                               num_workers=4, collate_fn=collate, drop_last=True)
    val_loader = torch.utils.data.DataLoader(val_set, batch_size=1, shuffle=False, num_workers=2, collate_fn=collate)

    model = build_model(args.weights).to(device)
    params = [p for p in model.parameters() if p.requires_grad]
    optimizer = torch.optim.SGD(params, lr=args.lr * hvd.size(), momentum=0.9, weight_decay=1e-4)
    optimizer = hvd.DistributedOptimizer(optimizer, named_parameters=model.named_parameters())
    scheduler = WarmupPolyLR(optimizer, args, len(train_loader))

    start_epoch = 0
    if args.resume:
        ckpt = torch.load(args.resume, map_location="cpu")
        model.load_state_dict(ckpt["model"])
        optimizer.load_state_dict(ckpt["optimizer"])
        scheduler.load_state_dict(ckpt["scheduler"])
        start_epoch = ckpt["epoch"] + 1
    hvd.broadcast_parameters(model.state_dict(), root_rank=0)
    hvd.broadcast_optimizer_state(optimizer, root_rank=0)

    if args.test_only:
        if dist.is_master():
            log.info("val score %.4f", evaluate(model, val_loader, device))
        return

    os.makedirs(args.output_dir, exist_ok=True)
    for epoch in range(start_epoch, args.epochs):
        train_one_epoch(model, optimizer, scheduler, train_loader, device, epoch)
        if dist.is_master():
            score = evaluate(model, val_loader, device)
            log.info("epoch %d val score %.4f", epoch, score)
        dist.save_on_master({"model": model.state_dict(), "optimizer": optimizer.state_dict(),
                             "scheduler": scheduler.state_dict(), "epoch": epoch},
                            os.path.join(args.output_dir, "checkpoint.pth"))


if __name__ == "__main__":
    main()
