# ML2023 HW3 - Image classification (Food-11), my multi-GPU version with horovod
# horovodrun -np 2 python hw3_hvd.py
import csv
import os
from glob import glob

import numpy as np
import torch
import torch.nn as nn
import horovod.torch as hvd
from PIL import Image
from torch.utils.data import DataLoader, Dataset
from torchvision import transforms
from tqdm.auto import tqdm

config = {
    "seed": 6666,
    "dataset_dir": "./food11",
    "batch_size": 64,
    "lr": 3e-4,
    "weight_decay": 1e-5,
    "n_epochs": 20,
    "patience": 6,
    "exp_name": "sample",
}

hvd.init()
torch.manual_seed(config["seed"])
np.random.seed(config["seed"])
if torch.cuda.is_available():
    torch.cuda.set_device(hvd.local_rank())
device = "cuda" if torch.cuda.is_available() else "cpu"

train_tfm = transforms.Compose([
    transforms.Resize((128, 128)),
    transforms.RandomHorizontalFlip(),
    transforms.ColorJitter(0.2, 0.2, 0.2),
    transforms.ToTensor(),
])
test_tfm = transforms.Compose([transforms.Resize((128, 128)), transforms.ToTensor()])


class FoodDataset(Dataset):
    def __init__(self, files, tfm):
        self.files = files
        self.tfm = tfm

    def __len__(self):
        return len(self.files)

    def __getitem__(self, idx):
        fname = self.files[idx]
        im = self.tfm(Image.open(fname).convert("RGB"))
        try:
            label = int(os.path.basename(fname).split("_")[0])
        except ValueError:
            label = -1  # test set has no labels
        return im, label


def my_part(files):
    """Same shuffled order on every worker (same seed), equal-sized slices."""
    files = sorted(files)
    rng = np.random.RandomState(config["seed"])
    rng.shuffle(files)
    usable = len(files) // hvd.size() * hvd.size()
    return files[:usable][hvd.rank()::hvd.size()]


class Classifier(nn.Module):
    def __init__(self):
        super().__init__()
        layers, c = [], 3
        for out in (64, 128, 256, 512, 512):
            layers += [nn.Conv2d(c, out, 3, 1, 1), nn.BatchNorm2d(out), nn.ReLU(), nn.MaxPool2d(2)]
            c = out
        self.cnn = nn.Sequential(*layers)
        self.fc = nn.Sequential(nn.Linear(512 * 4 * 4, 1024), nn.ReLU(), nn.Linear(1024, 11))

    def forward(self, x):
        return self.fc(self.cnn(x).flatten(1))


train_files = my_part(glob(os.path.join(config["dataset_dir"], "train", "*.jpg")))
valid_files = sorted(glob(os.path.join(config["dataset_dir"], "valid", "*.jpg")))[hvd.rank()::hvd.size()]
train_loader = DataLoader(FoodDataset(train_files, train_tfm), batch_size=config["batch_size"],
                          shuffle=True, num_workers=2, pin_memory=True)
valid_loader = DataLoader(FoodDataset(valid_files, test_tfm), batch_size=config["batch_size"],
                          shuffle=False, num_workers=2, pin_memory=True)

model = Classifier().to(device)
criterion = nn.CrossEntropyLoss()
optimizer = torch.optim.Adam(model.parameters(), lr=config["lr"] * hvd.size(),
                             weight_decay=config["weight_decay"])
optimizer = hvd.DistributedOptimizer(optimizer, named_parameters=model.named_parameters())
hvd.broadcast_parameters(model.state_dict(), root_rank=0)
hvd.broadcast_optimizer_state(optimizer, root_rank=0)

stale, best_acc = 0, 0.0
for epoch in range(config["n_epochs"]):
    model.train()
    train_loss = []
    for imgs, labels in tqdm(train_loader, disable=hvd.rank() != 0):
        logits = model(imgs.to(device))
        loss = criterion(logits, labels.to(device))
        optimizer.zero_grad()
        loss.backward()
        grad_norm = nn.utils.clip_grad_norm_(model.parameters(), max_norm=10)
        optimizer.step()
        train_loss.append(loss.item())

    model.eval()
    preds, gts = [], []
    with torch.no_grad():
        for imgs, labels in valid_loader:
            preds.append(model(imgs.to(device)).argmax(dim=-1).cpu())
            gts.append(labels)
    preds = hvd.allgather(torch.cat(preds), name="val_preds")
    gts = hvd.allgather(torch.cat(gts), name="val_gts")
    valid_acc = (preds == gts).float().mean().item()

    if hvd.rank() == 0:
        print(f"[ Train | {epoch + 1:03d}/{config['n_epochs']:03d} ] loss = {np.mean(train_loss):.5f}")
        print(f"[ Valid | {epoch + 1:03d}/{config['n_epochs']:03d} ] acc = {valid_acc:.5f}")
        with open(f"./{config['exp_name']}_log.csv", "a", newline="") as f:
            csv.writer(f).writerow([epoch + 1, np.mean(train_loss), valid_acc])

    if valid_acc > best_acc:
        if hvd.rank() == 0:
            print(f"Best model found at epoch {epoch + 1}, saving model")
            torch.save(model.state_dict(), f"{config['exp_name']}_best.ckpt")
        best_acc, stale = valid_acc, 0
    else:
        stale += 1
        if stale > config["patience"]:
            if hvd.rank() == 0:
                print(f"No improvment {config['patience']} consecutive epochs, early stopping")
            break
