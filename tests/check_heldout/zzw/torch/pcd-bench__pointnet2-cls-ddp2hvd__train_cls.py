"""
PointNet(++)-style classification on ModelNet40 (h5 shards pre-sampled to 1024 points).

Originally trained with torch.distributed; ported to Horovod so it runs on the
cluster's MPI stack:

    horovodrun -np 4 python train_cls.py --data_dir data/modelnet40_ply_hdf5_2048
"""
import argparse
import datetime
import glob
import logging
import os

import h5py
import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.data import DataLoader, Dataset
from torch.utils.data.distributed import DistributedSampler

import horovod.torch as hvd


def parse_args():
    parser = argparse.ArgumentParser("PointNet classification")
    parser.add_argument("--data_dir", type=str, default="data/modelnet40_ply_hdf5_2048")
    parser.add_argument("--batch_size", type=int, default=24, help="batch size per process")
    parser.add_argument("--epoch", type=int, default=200)
    parser.add_argument("--learning_rate", type=float, default=0.001)
    parser.add_argument("--decay_rate", type=float, default=1e-4)
    parser.add_argument("--num_point", type=int, default=1024)
    parser.add_argument("--log_dir", type=str, default="log/classification")
    parser.add_argument("--world_size", type=int, default=1, help="number of distributed processes")
    parser.add_argument("--seed", type=int, default=0)
    return parser.parse_args()


def load_h5(pattern):
    pts, lbl = [], []
    for f in sorted(glob.glob(pattern)):
        with h5py.File(f, "r") as h:
            pts.append(h["data"][:].astype(np.float32))
            lbl.append(h["label"][:].astype(np.int64).reshape(-1))
    return np.concatenate(pts), np.concatenate(lbl)


class ModelNet40(Dataset):
    def __init__(self, root, split, num_point, augment):
        self.points, self.labels = load_h5(os.path.join(root, f"ply_data_{split}*.h5"))
        self.num_point = num_point
        self.augment = augment

    def __len__(self):
        return len(self.labels)

    def __getitem__(self, i):
        p = self.points[i, : self.num_point].copy()
        p = p - p.mean(0, keepdims=True)
        p = p / np.max(np.linalg.norm(p, axis=1))
        if self.augment:
            p = p * np.random.uniform(0.8, 1.25, size=(1, 3)).astype(np.float32)
            p = p + np.random.uniform(-0.1, 0.1, size=(1, 3)).astype(np.float32)
        return torch.from_numpy(p), self.labels[i]


class PointNetCls(nn.Module):
    def __init__(self, k=40):
        super().__init__()
        self.mlp1 = nn.Sequential(nn.Conv1d(3, 64, 1), nn.BatchNorm1d(64), nn.ReLU(),
                                  nn.Conv1d(64, 128, 1), nn.BatchNorm1d(128), nn.ReLU(),
                                  nn.Conv1d(128, 512, 1), nn.BatchNorm1d(512), nn.ReLU())
        self.head = nn.Sequential(nn.Linear(512, 256), nn.BatchNorm1d(256), nn.ReLU(), nn.Dropout(0.4),
                                  nn.Linear(256, k))

    def forward(self, x):  # x: B x N x 3
        x = self.mlp1(x.transpose(1, 2))
        return self.head(torch.max(x, 2)[0])


def test(model, loader, device):
    model.eval()
    correct = torch.zeros(1)
    total = torch.zeros(1)
    with torch.no_grad():
        for points, target in loader:
            pred = model(points.to(device)).argmax(1).cpu()
            correct += (pred == target).sum()
            total += target.numel()
    correct = hvd.allreduce(correct, op=hvd.Sum, name="correct")
    total = hvd.allreduce(total, op=hvd.Sum, name="total")
    return (correct / total).item()


def main(args):
    hvd.init()
    torch.manual_seed(args.seed)
    np.random.seed(args.seed + hvd.rank())
    if torch.cuda.is_available():
        torch.cuda.set_device(hvd.local_rank())
    device = torch.device("cuda" if torch.cuda.is_available() else "cpu")

    timestr = datetime.datetime.now().strftime("%Y-%m-%d_%H-%M")
    exp_dir = os.path.join(args.log_dir, timestr)
    logger = logging.getLogger("Model")
    logging.basicConfig(level=logging.INFO if hvd.rank() == 0 else logging.ERROR)

    train_set = ModelNet40(args.data_dir, "train", args.num_point, augment=True)
    test_set = ModelNet40(args.data_dir, "test", args.num_point, augment=False)
    test_sampler = DistributedSampler(test_set, num_replicas=hvd.size(), rank=hvd.rank(), shuffle=False)
    if args.world_size > 1:
        train_sampler = DistributedSampler(train_set, num_replicas=hvd.size(), rank=hvd.rank())
    else:
        train_sampler = None
    train_loader = DataLoader(train_set, batch_size=args.batch_size, shuffle=(train_sampler is None),
                              sampler=train_sampler, num_workers=4, drop_last=True)
    test_loader = DataLoader(test_set, batch_size=args.batch_size, sampler=test_sampler, num_workers=4)

    model = PointNetCls(40).to(device)
    optimizer = torch.optim.Adam(model.parameters(), lr=args.learning_rate * hvd.size(),
                                 betas=(0.9, 0.999), eps=1e-08, weight_decay=args.decay_rate)
    scheduler = torch.optim.lr_scheduler.StepLR(optimizer, step_size=20, gamma=0.7)

    hvd.broadcast_parameters(model.state_dict(), root_rank=0)
    hvd.broadcast_optimizer_state(optimizer, root_rank=0)
    if args.world_size > 1:
        optimizer = hvd.DistributedOptimizer(optimizer, named_parameters=model.named_parameters())

    best_acc = 0.0
    for epoch in range(args.epoch):
        if train_sampler is not None:
            train_sampler.set_epoch(epoch)
        model.train()
        for points, target in train_loader:
            points, target = points.to(device), target.to(device)
            optimizer.zero_grad()
            loss = F.cross_entropy(model(points), target, label_smoothing=0.2)
            loss.backward()
            optimizer.step()
        scheduler.step()

        acc = test(model, test_loader, device)
        logger.info("Epoch %d/%d  loss %.4f  test instance acc %.4f", epoch + 1, args.epoch, loss.item(), acc)
        if acc >= best_acc and hvd.rank() == 0:
            best_acc = acc
            os.makedirs(exp_dir, exist_ok=True)
            torch.save({"epoch": epoch, "instance_acc": acc, "model_state_dict": model.state_dict(),
                        "optimizer_state_dict": optimizer.state_dict()}, os.path.join(exp_dir, "best_model.pth"))


if __name__ == "__main__":
    main(parse_args())
