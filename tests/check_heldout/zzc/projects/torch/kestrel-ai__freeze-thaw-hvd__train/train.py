"""Gradual unfreezing ("freeze-thaw") fine-tuning of an ImageNet ResNet-18 on a
satellite-tile dataset stored as .npz shards. Multi-GPU via Horovod."""
import argparse
import time

import torch
import torch.nn as nn
import horovod.torch as hvd
from torch.utils.data import DataLoader
from torch.utils.data.distributed import DistributedSampler

from thaw.data import NpzTiles
from thaw.model import resnet18_from_file
from thaw.schedule import freeze_backbone, unfreeze
from thaw.ckpt import save_checkpoint

parser = argparse.ArgumentParser()
parser.add_argument("--train-npz", default="data/tiles_train.npz")
parser.add_argument("--val-npz", default="data/tiles_val.npz")
parser.add_argument("--weights", default="pretrained/resnet18-f37072fd.pth")
parser.add_argument("--classes", type=int, default=10)
parser.add_argument("--epochs", type=int, default=12)
parser.add_argument("--unfreeze-at", type=int, default=3, help="epoch at which the backbone is thawed")
parser.add_argument("--bs", type=int, default=64)
parser.add_argument("--lr", type=float, default=0.01)
parser.add_argument("--momentum", type=float, default=0.9)
parser.add_argument("--out-dir", default="checkpoints")
args = parser.parse_args()

hvd.init()
torch.manual_seed(42)
if torch.cuda.is_available():
    torch.cuda.set_device(hvd.local_rank())
device = "cuda" if torch.cuda.is_available() else "cpu"

train_ds, val_ds = NpzTiles(args.train_npz, train=True), NpzTiles(args.val_npz, train=False)
train_sampler = DistributedSampler(train_ds, num_replicas=hvd.size(), rank=hvd.rank())
val_sampler = DistributedSampler(val_ds, num_replicas=hvd.size(), rank=hvd.rank(), shuffle=False)
train_loader = DataLoader(train_ds, batch_size=args.bs, sampler=train_sampler, num_workers=2)
val_loader = DataLoader(val_ds, batch_size=args.bs, sampler=val_sampler, num_workers=2)

model = resnet18_from_file(args.weights, args.classes).to(device)
freeze_backbone(model)

lr = args.lr * hvd.size()
backbone_params = [p for n, p in model.named_parameters() if not n.startswith("fc.")]
optimizer = torch.optim.SGD([
    {"params": backbone_params, "lr": lr * 0.1},
    {"params": model.fc.parameters(), "lr": lr},
], momentum=args.momentum, weight_decay=1e-4)
optimizer = hvd.DistributedOptimizer(optimizer, named_parameters=model.named_parameters())

hvd.broadcast_parameters(model.state_dict(), root_rank=0)
hvd.broadcast_optimizer_state(optimizer, root_rank=0)

criterion = nn.CrossEntropyLoss()


def evaluate():
    model.eval()
    correct, seen = 0, 0
    with torch.no_grad():
        for x, y in val_loader:
            x, y = x.to(device), y.to(device)
            correct += (model(x).argmax(1) == y).sum().item()
            seen += y.size(0)
    acc = torch.tensor(correct / max(seen, 1))
    return hvd.allreduce(acc, name="val_acc").item()


best_acc = 0.0
for epoch in range(args.epochs):
    if epoch == args.unfreeze_at:
        unfreeze(model)
        if hvd.rank() == 0:
            print(f"epoch {epoch}: backbone unfrozen")
    model.train()
    train_sampler.set_epoch(epoch)
    t0 = time.time()
    for i, (x, y) in enumerate(train_loader):
        x, y = x.to(device), y.to(device)
        optimizer.zero_grad()
        loss = criterion(model(x), y)
        loss.backward()
        optimizer.step()
        if i % 50 == 0 and hvd.rank() == 0:
            print(f"[{epoch}:{i}] loss {loss.item():.4f}")
    acc = evaluate()
    is_best = acc > best_acc
    best_acc = max(acc, best_acc)
    if hvd.rank() == 0:
        print(f"epoch {epoch} val_acc {acc:.4f} best {best_acc:.4f} ({time.time() - t0:.0f}s)")
    save_checkpoint({"epoch": epoch, "state_dict": model.state_dict(),
                     "optimizer": optimizer.state_dict(), "best_acc": best_acc},
                    is_best, args.out_dir)
