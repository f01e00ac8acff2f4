# -*- coding: utf-8 -*-
# EfficientNet-B0 fine-tuning with elastic Horovod and a weight EMA.
#
#   horovodrun -np 4 --min-np 2 --max-np 8 --host-discovery-script ./discover_hosts.sh \
#       python train_ema.py --data /mnt/datasets/food101 --epochs 30
import argparse
import copy
import json
import os
import time

import torch
import torch.nn.functional as F
import torchvision
from torchvision import transforms
import horovod.torch as hvd

parser = argparse.ArgumentParser()
parser.add_argument('--data', required=True, help='ImageFolder root with train/ and val/')
parser.add_argument('--arch', default='efficientnet_b0')
parser.add_argument('--epochs', type=int, default=30)
parser.add_argument('--batch-size', type=int, default=64, help='per worker')
parser.add_argument('--lr', type=float, default=0.01, help='single-worker learning rate')
parser.add_argument('--ema-decay', type=float, default=0.999)
parser.add_argument('--ckpt-dir', default='checkpoints')
parser.add_argument('--batches-per-commit', type=int, default=100)
args = parser.parse_args()

hvd.init()
torch.manual_seed(1337)
if torch.cuda.is_available():
    torch.cuda.set_device(hvd.local_rank())
    torch.backends.cudnn.benchmark = True
device = torch.device('cuda' if torch.cuda.is_available() else 'cpu')

normalize = transforms.Normalize([0.485, 0.456, 0.406], [0.229, 0.224, 0.225])
train_ds = torchvision.datasets.ImageFolder(os.path.join(args.data, 'train'), transforms.Compose([
    transforms.RandomResizedCrop(224), transforms.RandomHorizontalFlip(), transforms.ToTensor(), normalize]))
val_ds = torchvision.datasets.ImageFolder(os.path.join(args.data, 'val'), transforms.Compose([
    transforms.Resize(256), transforms.CenterCrop(224), transforms.ToTensor(), normalize]))

# ElasticSampler re-partitions the remaining indices whenever the worker set changes
train_sampler = hvd.elastic.ElasticSampler(train_ds, shuffle=True, seed=1337)
train_loader = torch.utils.data.DataLoader(train_ds, batch_size=args.batch_size, sampler=train_sampler,
                                           num_workers=4, pin_memory=True)
val_loader = torch.utils.data.DataLoader(val_ds, batch_size=128, shuffle=False, num_workers=4)

model = getattr(torchvision.models, args.arch)(num_classes=len(train_ds.classes)).to(device)
ema_model = copy.deepcopy(model).eval()
for p in ema_model.parameters():
    p.requires_grad_(False)

optimizer = torch.optim.SGD(model.parameters(), lr=args.lr * hvd.size(), momentum=0.9, weight_decay=1e-5)
optimizer = hvd.DistributedOptimizer(optimizer, named_parameters=model.named_parameters(), op=hvd.Average)


@torch.no_grad()
def update_ema(decay):
    msd = model.state_dict()
    for k, v in ema_model.state_dict().items():
        if v.dtype.is_floating_point:
            v.mul_(decay).add_(msd[k].detach(), alpha=1 - decay)
        else:
            v.copy_(msd[k])


@torch.no_grad()
def evaluate(net):
    """Full validation set, run by rank 0 only."""
    net.eval()
    correct = seen = 0
    for images, target in val_loader:
        correct += (net(images.to(device)).argmax(1).cpu() == target).sum().item()
        seen += target.size(0)
    return correct / seen


def adjust_lr(epoch, batch_idx):
    # cosine over epochs, linear warmup in the first epoch; lr follows the current world size
    steps = len(train_loader)
    progress = (epoch + batch_idx / steps) / args.epochs
    lr = args.lr * hvd.size() * 0.5 * (1 + torch.cos(torch.tensor(progress * 3.14159265)).item())
    if epoch == 0:
        lr *= (batch_idx + 1) / steps
    for g in optimizer.param_groups:
        g['lr'] = lr
    return lr


def on_state_reset():
    # world size changed: new lr follows from adjust_lr, sampler already reset by the state
    print(f'[rank {hvd.rank()}] reset, world size now {hvd.size()}', flush=True)


@hvd.elastic.run
def train(state):
    for state.epoch in range(state.epoch, args.epochs):
        model.train()
        state.train_sampler.set_epoch(state.epoch)
        t0 = time.time()
        for state.batch, (images, target) in enumerate(train_loader, start=state.batch):
            lr = adjust_lr(state.epoch, state.batch)
            loss = F.cross_entropy(model(images.to(device)), target.to(device))
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            update_ema(args.ema_decay)
            state.train_sampler.record_batch(state.batch, args.batch_size)
            if state.batch % args.batches_per_commit == 0:
                state.commit()
        state.batch = 0
        if hvd.rank() == 0:
            acc, ema_acc = evaluate(model), evaluate(ema_model)
            print(json.dumps({'epoch': state.epoch, 'lr': lr, 'val_acc': acc, 'val_acc_ema': ema_acc,
                              'time': round(time.time() - t0, 1)}), flush=True)
            os.makedirs(args.ckpt_dir, exist_ok=True)
            torch.save({'epoch': state.epoch, 'model': model.state_dict(), 'ema': ema_model.state_dict()},
                       os.path.join(args.ckpt_dir, f'{args.arch}_ep{state.epoch}.pth'))
        state.commit()


# the state's sync() broadcasts model, optimizer, sampler and counters from rank 0 on start and after resets
state = hvd.elastic.TorchState(model=model, optimizer=optimizer, train_sampler=train_sampler, epoch=0, batch=0)
state.register_reset_callbacks([on_state_reset])
train(state)
