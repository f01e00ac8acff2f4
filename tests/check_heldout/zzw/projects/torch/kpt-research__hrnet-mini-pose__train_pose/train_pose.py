# ------------------------------------------------------------------------------
# Distributed training of a small HRNet-style heatmap pose model on MPII.
#   horovodrun -np 4 -H localhost:4 python train_pose.py --cfg configs/mpii_w16.yaml
# ------------------------------------------------------------------------------
import argparse
import logging
import os

import torch
import torch.nn as nn
from torch.utils.data import DataLoader
from torch.utils.data.distributed import DistributedSampler

import horovod.torch as hvd

from pose.config import load_config
from pose.dataset import MPIICrops
from pose.evaluate import pckh
from pose.net import PoseNetW16

logger = logging.getLogger("pose")


def parse_args():
    parser = argparse.ArgumentParser(description="Train keypoints network")
    parser.add_argument("--cfg", default="configs/mpii_w16.yaml", type=str)
    parser.add_argument("--workers", default=4, type=int)
    parser.add_argument("opts", nargs=argparse.REMAINDER, help="KEY.SUB=value overrides")
    return parser.parse_args()


class JointsMSELoss(nn.Module):
    def __init__(self):
        super().__init__()
        self.mse = nn.MSELoss(reduction="mean")

    def forward(self, out, target, vis):
        w = vis[:, :, None, None]
        return 0.5 * self.mse(out * w, target * w)


def setup_logging(rank):
    level = logging.INFO if rank == 0 else logging.WARNING
    logging.basicConfig(level=level, format=f"[%(asctime)s r{rank}] %(message)s")


def main():
    args = parse_args()
    cfg = load_config(args.cfg, args.opts)

    hvd.init()
    setup_logging(hvd.rank())
    if torch.cuda.is_available():
        torch.cuda.set_device(hvd.local_rank())
    device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
    torch.backends.cudnn.benchmark = True

    train_set, val_set = MPIICrops(cfg, "train"), MPIICrops(cfg, "valid")
    train_sampler = DistributedSampler(train_set, num_replicas=hvd.size(), rank=hvd.rank(), shuffle=True)
    val_sampler = DistributedSampler(val_set, num_replicas=hvd.size(), rank=hvd.rank(), shuffle=False)
    train_loader = DataLoader(train_set, batch_size=cfg["TRAIN"]["BATCH_SIZE_PER_GPU"], sampler=train_sampler,
                              num_workers=args.workers, pin_memory=True, drop_last=True)
    val_loader = DataLoader(val_set, batch_size=cfg["TEST"]["BATCH_SIZE_PER_GPU"], sampler=val_sampler,
                            num_workers=args.workers, pin_memory=True)

    model = PoseNetW16(cfg["DATA"]["NUM_JOINTS"]).to(device)
    criterion = JointsMSELoss().to(device)
    optimizer = torch.optim.Adam(model.parameters(), lr=cfg["TRAIN"]["LR"])
    lr_scheduler = torch.optim.lr_scheduler.MultiStepLR(optimizer, cfg["TRAIN"]["LR_STEPS"], 0.1)

    hvd.broadcast_parameters(model.state_dict(), root_rank=0)
    hvd.broadcast_optimizer_state(optimizer, root_rank=0)
    optimizer = hvd.DistributedOptimizer(optimizer, named_parameters=model.named_parameters(),
                                         compression=hvd.Compression.fp16)

    best = 0.0
    out_dir = cfg["OUTPUT_DIR"]
    for epoch in range(cfg["TRAIN"]["EPOCHS"]):
        train_sampler.set_epoch(epoch)
        model.train()
        for i, (img, hm, _, vis, _) in enumerate(train_loader):
            img, hm, vis = img.to(device, non_blocking=True), hm.to(device), vis.to(device)
            loss = criterion(model(img), hm, vis)
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            if i % 100 == 0:
                logger.info("epoch %d iter %d/%d loss %.6f", epoch, i, len(train_loader), loss.item())
        lr_scheduler.step()

        perf, val_loss = pckh(model, val_loader, cfg, device)
        logger.info("epoch %d  val loss %.6f  PCKh@%.1f %.2f", epoch, val_loss,
                    cfg["TEST"]["PCK_THRESHOLD"], 100 * perf)
        if hvd.rank() == 0:
            os.makedirs(out_dir, exist_ok=True)
            state = {"epoch": epoch + 1, "state_dict": model.state_dict(), "perf": perf,
                     "optimizer": optimizer.state_dict()}
            torch.save(state, os.path.join(out_dir, "checkpoint.pth"))
            if perf > best:
                best = perf
                torch.save(model.state_dict(), os.path.join(out_dir, "model_best.pth"))


if __name__ == "__main__":
    main()
