#!/usr/bin/env python
# Galaxy morphology classifier (smooth / featured / edge-on / artefact) on 64x64 g,r,i cutouts.
# Run on Perlmutter:  srun -N 2 --ntasks-per-node=4 --gpus-per-node=4 python train_morph.py
import os
import time

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F
import horovod.torch as hvd

import matplotlib
matplotlib.use("Agg")
import matplotlib.pyplot as plt

DATA = os.environ.get("MORPH_DATA", "/pscratch/sd/g/gzoo/cutouts")
EPOCHS = int(os.environ.get("MORPH_EPOCHS", 25))
BATCH = 64           # per rank
LR = 0.01            # plain SGD; the per-rank gradients are SUMMED below, so this is not scaled
SEED = 2024

hvd.init()
# one GPU per rank: hide the others before CUDA is touched, then everything is "cuda"
os.environ["CUDA_VISIBLE_DEVICES"] = str(hvd.local_rank())
torch.set_num_threads(int(os.environ.get("SLURM_CPUS_PER_TASK", 8)))
device = torch.device("cuda" if torch.cuda.is_available() else "cpu")

images = np.load(os.path.join(DATA, "train_images.npy"), mmap_mode="r")   # (N, 3, 64, 64) uint8
labels = np.load(os.path.join(DATA, "train_labels.npy"))                  # (N,) int
test_x = np.load(os.path.join(DATA, "test_images.npy"))
test_y = np.load(os.path.join(DATA, "test_labels.npy"))

# every rank draws the same permutation and takes every size-th entry; the tail is cut so that
# all ranks take the same number of steps
perm = np.random.RandomState(SEED).permutation(len(labels))
per_rank = len(perm) // hvd.size()
my_idx = np.sort(perm[hvd.rank()::hvd.size()][:per_rank])
x_local = torch.from_numpy(np.ascontiguousarray(images[my_idx])).float().div_(255.0)
y_local = torch.from_numpy(labels[my_idx]).long()
steps = per_rank // BATCH


class MorphCNN(nn.Module):
    def __init__(self, n_classes=4):
        super().__init__()
        self.c1 = nn.Conv2d(3, 32, 3, padding=1)
        self.c2 = nn.Conv2d(32, 64, 3, padding=1)
        self.c3 = nn.Conv2d(64, 128, 3, padding=1)
        self.fc = nn.Linear(128, n_classes)

    def forward(self, x):
        x = F.max_pool2d(F.relu(self.c1(x)), 2)
        x = F.max_pool2d(F.relu(self.c2(x)), 2)
        x = F.relu(self.c3(x))
        return self.fc(F.adaptive_avg_pool2d(x, 1).flatten(1))


torch.manual_seed(SEED)
model = MorphCNN().to(device)
opt = torch.optim.SGD(model.parameters(), lr=LR, momentum=0.9)
opt = hvd.DistributedOptimizer(opt, named_parameters=model.named_parameters(), op=hvd.Sum)
hvd.broadcast_parameters(model.state_dict(), root_rank=0)
hvd.broadcast_optimizer_state(opt, root_rank=0)


def test_accuracy():
    model.eval()
    correct = 0
    with torch.no_grad():
        for i in range(0, len(test_y), 512):
            xb = torch.from_numpy(test_x[i:i + 512]).float().div_(255.0).to(device)
            correct += (model(xb).argmax(1).cpu() == torch.from_numpy(test_y[i:i + 512])).sum().item()
    return correct / len(test_y)


curve = []
rng = np.random.RandomState(SEED + hvd.rank())
for epoch in range(EPOCHS):
    t0 = time.time()
    model.train()
    order = rng.permutation(per_rank)
    for s in range(steps):
        b = order[s * BATCH:(s + 1) * BATCH]
        xb, yb = x_local[b].to(device), y_local[b].to(device)
        opt.zero_grad()
        loss = F.cross_entropy(model(xb), yb)
        loss.backward()
        opt.step()

    if hvd.rank() == 0:
        # rank 0 scores the whole test set; the other ranks go straight on to the next epoch
        acc = test_accuracy()
        curve.append(acc)
        print(f"epoch {epoch}: test acc {acc:.4f}  ({time.time() - t0:.1f}s)", flush=True)
        torch.save({"epoch": epoch, "model": model.state_dict()}, "morph_cnn.pt")

if hvd.rank() == 0:
    plt.plot(np.arange(1, EPOCHS + 1), curve, marker="o")
    plt.xlabel("epoch")
    plt.ylabel("test accuracy")
    plt.savefig("morph_accuracy.png", dpi=120)
