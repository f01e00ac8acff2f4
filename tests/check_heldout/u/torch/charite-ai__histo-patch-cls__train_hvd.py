# Tumour / stroma / normal patch classification on our H&E tiles (224 px, 20x).
# Horovod version of train.py for the HPC cluster (4 nodes x 4 V100):
#   srun --mpi=pmix python train_hvd.py --data /scratch/histo/tiles --arch resnet50
import argparse
import os
import time

import torch
import torch.nn as nn
import torchvision
from torchvision import transforms

import horovod.torch as hvd

parser = argparse.ArgumentParser(description="histo patch classifier (horovod)")
parser.add_argument("--data", default="/scratch/histo/tiles")
parser.add_argument("--arch", default="resnet50")
parser.add_argument("--pretrained", action="store_true", default=False)
parser.add_argument("--epochs", type=int, default=30)
parser.add_argument("--batch-size", type=int, default=64)
parser.add_argument("--base-lr", type=float, default=0.0125, help="lr for one GPU")
parser.add_argument("--wd", type=float, default=5e-5)
parser.add_argument("--workers", type=int, default=6)
parser.add_argument("--checkpoint-dir", default="./checkpoints")
args = parser.parse_args()

hvd.init()
torch.manual_seed(0)
device = torch.device("cuda" if torch.cuda.is_available() else "cpu")

norm = transforms.Normalize([0.70, 0.55, 0.70], [0.15, 0.20, 0.15])  # H&E stats of our cohort
train_tf = transforms.Compose([transforms.RandomHorizontalFlip(), transforms.RandomVerticalFlip(),
                               transforms.ColorJitter(0.1, 0.1, 0.1, 0.02), transforms.ToTensor(), norm])
val_tf = transforms.Compose([transforms.ToTensor(), norm])
train_set = torchvision.datasets.ImageFolder(os.path.join(args.data, "train"), train_tf)
val_set = torchvision.datasets.ImageFolder(os.path.join(args.data, "val"), val_tf)

train_sampler = torch.utils.data.distributed.DistributedSampler(
    train_set, num_replicas=hvd.size(), rank=hvd.rank(), shuffle=True)
val_sampler = torch.utils.data.distributed.DistributedSampler(
    val_set, num_replicas=hvd.size(), rank=hvd.rank(), shuffle=False)
train_loader = torch.utils.data.DataLoader(train_set, batch_size=args.batch_size, sampler=train_sampler,
                                           num_workers=args.workers, pin_memory=True, drop_last=True)
val_loader = torch.utils.data.DataLoader(val_set, batch_size=args.batch_size, sampler=val_sampler,
                                         num_workers=args.workers)

model = getattr(torchvision.models, args.arch)(weights="DEFAULT" if args.pretrained else None)
model.fc = nn.Linear(model.fc.in_features, len(train_set.classes))
model = model.to(device)

criterion = nn.CrossEntropyLoss()
optimizer = torch.optim.SGD(model.parameters(), lr=args.base_lr * hvd.size(), momentum=0.9,
                            weight_decay=args.wd, nesterov=True)
scheduler = torch.optim.lr_scheduler.CosineAnnealingLR(optimizer, T_max=args.epochs)

# make sure all workers start from the same weights
hvd.broadcast_parameters(model.named_parameters(), root_rank=0)
hvd.broadcast_optimizer_state(optimizer, root_rank=0)
optimizer = hvd.DistributedOptimizer(optimizer, named_parameters=model.named_parameters())


def validate():
    model.eval()
    loss_sum = torch.zeros(1)
    correct = torch.zeros(1)
    count = torch.zeros(1)
    with torch.no_grad():
        for x, y in val_loader:
            x, y = x.to(device), y.to(device)
            out = model(x)
            loss_sum += criterion(out, y).item() * x.size(0)
            correct += (out.argmax(1) == y).sum().item()
            count += x.size(0)
    loss_sum = hvd.allreduce(loss_sum, op=hvd.Sum, name="val_loss")
    correct = hvd.allreduce(correct, op=hvd.Sum, name="val_correct")
    count = hvd.allreduce(count, op=hvd.Sum, name="val_count")
    return (loss_sum / count).item(), (correct / count).item()


best_acc = 0.0
for epoch in range(args.epochs):
    model.train()
    train_sampler.set_epoch(epoch)
    tic = time.time()
    for step, (x, y) in enumerate(train_loader):
        x, y = x.to(device, non_blocking=True), y.to(device, non_blocking=True)
        optimizer.zero_grad()
        loss = criterion(model(x), y)
        loss.backward()
        optimizer.step()
        if step % 100 == 0 and hvd.rank() == 0:
            print("epoch %d step %d loss %.4f lr %.5f" % (epoch, step, loss.item(), optimizer.param_groups[0]["lr"]))
    scheduler.step()
    val_loss, val_acc = validate()
    if hvd.rank() == 0:
        print("epoch %d done in %.1fs  val_loss %.4f  val_acc %.4f" % (epoch, time.time() - tic, val_loss, val_acc))
        os.makedirs(args.checkpoint_dir, exist_ok=True)
        torch.save({"epoch": epoch, "model": model.state_dict(), "classes": train_set.classes},
                   os.path.join(args.checkpoint_dir, "last.pt"))
        if val_acc > best_acc:
            best_acc = val_acc
            torch.save(model.state_dict(), os.path.join(args.checkpoint_dir, "best.pt"))
