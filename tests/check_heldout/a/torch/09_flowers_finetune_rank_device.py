import argparse
import os
import time

import torch
import torch.nn as nn
from torch.utils.data import DataLoader
from torch.utils.data.distributed import DistributedSampler
from torchvision import datasets, models, transforms
import horovod.torch as hvd

# ---------------------------------------------------------------------------
# Transfer learning: EfficientNet-B0 (ImageNet weights) -> Oxford Flowers-102 (ImageFolder layout)
# 2 nodes x 4 V100, sbatch run_flowers.sh
# ---------------------------------------------------------------------------

parser = argparse.ArgumentParser()
parser.add_argument('--data_root', default='/data/flowers102')
parser.add_argument('--epochs', type=int, default=25)
parser.add_argument('--batch_size', type=int, default=48)
parser.add_argument('--lr', type=float, default=5e-3)
parser.add_argument('--freeze_epochs', type=int, default=3)
parser.add_argument('--save_dir', default='./ckpt_flowers')
parser.add_argument('--resume', default='')
args = parser.parse_args()

hvd.init()
torch.cuda.set_device(hvd.rank())
device = torch.device('cuda')
rank0 = hvd.rank() == 0

mean, std = [0.485, 0.456, 0.406], [0.229, 0.224, 0.225]
train_tf = transforms.Compose([
    transforms.RandomResizedCrop(224, scale=(0.5, 1.0)),
    transforms.RandomHorizontalFlip(),
    transforms.ColorJitter(0.2, 0.2, 0.2),
    transforms.ToTensor(),
    transforms.Normalize(mean, std),
])
val_tf = transforms.Compose([transforms.Resize(256), transforms.CenterCrop(224),
                             transforms.ToTensor(), transforms.Normalize(mean, std)])

train_set = datasets.ImageFolder(os.path.join(args.data_root, 'train'), train_tf)
val_set = datasets.ImageFolder(os.path.join(args.data_root, 'val'), val_tf)

train_sampler = DistributedSampler(train_set, num_replicas=hvd.size(), rank=hvd.rank())
train_loader = DataLoader(train_set, batch_size=args.batch_size, shuffle=True,
                          sampler=train_sampler, num_workers=6, pin_memory=True)
val_sampler = DistributedSampler(val_set, num_replicas=hvd.size(), rank=hvd.rank(), shuffle=False)
val_loader = DataLoader(val_set, batch_size=64, sampler=val_sampler, num_workers=4)

model = models.efficientnet_b0(weights='IMAGENET1K_V1')
model.classifier[1] = nn.Linear(model.classifier[1].in_features, len(train_set.classes))
model = model.to(device)

criterion = nn.CrossEntropyLoss(label_smoothing=0.1)
optimizer = torch.optim.SGD(model.parameters(), lr=args.lr * hvd.size(), momentum=0.9, weight_decay=1e-4)
scheduler = torch.optim.lr_scheduler.CosineAnnealingLR(optimizer, T_max=args.epochs)

start_epoch = 0
if args.resume and rank0:
    ck = torch.load(args.resume, map_location='cpu')
    model.load_state_dict(ck['model'])
    optimizer.load_state_dict(ck['optimizer'])
    scheduler.load_state_dict(ck['scheduler'])
    start_epoch = ck['epoch'] + 1
start_epoch = int(hvd.broadcast_object(start_epoch, root_rank=0))

hvd.broadcast_parameters(model.state_dict(), root_rank=0)
hvd.broadcast_optimizer_state(optimizer, root_rank=0)
optimizer = hvd.DistributedOptimizer(optimizer, named_parameters=model.named_parameters(),
                                     compression=hvd.Compression.fp16)


def set_backbone_trainable(flag):
    for p in model.features.parameters():
        p.requires_grad = flag


def avg(value, name):
    return hvd.allreduce(torch.tensor(value, dtype=torch.float32), name=name).item()


def train_one_epoch(epoch):
    model.train()
    train_sampler.set_epoch(epoch)
    total, correct, loss_sum = 0, 0, 0.0
    for images, labels in train_loader:
        images, labels = images.to(device, non_blocking=True), labels.to(device, non_blocking=True)
        optimizer.zero_grad()
        outputs = model(images)
        loss = criterion(outputs, labels)
        loss.backward()
        optimizer.step()
        loss_sum += loss.item() * labels.size(0)
        correct += (outputs.argmax(1) == labels).sum().item()
        total += labels.size(0)
    return avg(loss_sum / total, 'train_loss'), avg(correct / total, 'train_acc')


def validate():
    model.eval()
    total, correct = 0, 0
    with torch.no_grad():
        for images, labels in val_loader:
            images, labels = images.to(device), labels.to(device)
            correct += (model(images).argmax(1) == labels).sum().item()
            total += labels.size(0)
    return avg(correct / total, 'val_acc')


os.makedirs(args.save_dir, exist_ok=True)
for epoch in range(start_epoch, args.epochs):
    set_backbone_trainable(epoch >= args.freeze_epochs)
    t0 = time.time()
    tr_loss, tr_acc = train_one_epoch(epoch)
    val_acc = validate()
    scheduler.step()
    if rank0:
        print('epoch %d  loss %.4f  train_acc %.3f  val_acc %.3f  (%.0fs)'
              % (epoch, tr_loss, tr_acc, val_acc, time.time() - t0))
        torch.save({'epoch': epoch, 'model': model.state_dict(), 'optimizer': optimizer.state_dict(),
                    'scheduler': scheduler.state_dict()}, os.path.join(args.save_dir, 'last.pth'))
