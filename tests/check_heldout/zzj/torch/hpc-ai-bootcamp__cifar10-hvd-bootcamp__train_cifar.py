"""
GPU Bootcamp - Lab 3: scaling CIFAR-10 training to many GPUs with Horovod.

Run on one node with 4 GPUs:
    horovodrun -np 4 -H localhost:4 python train_cifar.py --epochs 30
Run on two nodes:
    horovodrun -np 8 -H node1:4,node2:4 python train_cifar.py --epochs 30
"""
import argparse
import os
import time

import torch
import torch.nn as nn
import torch.nn.functional as F
import torch.optim as optim
import torchvision
import torchvision.transforms as T
from torch.utils.data import DataLoader
from torch.utils.data.distributed import DistributedSampler
from tqdm import tqdm
import horovod.torch as hvd

try:
    from tensorboardX import SummaryWriter
except ImportError:  # tensorboardX is optional on the cluster image
    SummaryWriter = None


def get_args():
    p = argparse.ArgumentParser(description='Bootcamp CIFAR-10 / Horovod')
    p.add_argument('--data-dir', default=os.environ.get('DATA_DIR', './data'))
    p.add_argument('--log-dir', default='./tb_logs')
    p.add_argument('--ckpt-dir', default='./checkpoints')
    p.add_argument('--epochs', type=int, default=30)
    p.add_argument('--batch-size', type=int, default=256, help='per GPU')
    p.add_argument('--base-lr', type=float, default=0.05, help='lr for one GPU')
    p.add_argument('--warmup-epochs', type=int, default=3)
    p.add_argument('--batches-per-allreduce', type=int, default=1)
    p.add_argument('--fp16-allreduce', action='store_true')
    p.add_argument('--num-workers', type=int, default=4)
    return p.parse_args()


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        def block(i, o):
            return nn.Sequential(nn.Conv2d(i, o, 3, padding=1, bias=False), nn.BatchNorm2d(o), nn.ReLU(inplace=True))
        self.features = nn.Sequential(block(3, 64), block(64, 128), nn.MaxPool2d(2),
                                      block(128, 256), nn.MaxPool2d(2), block(256, 512),
                                      nn.AdaptiveMaxPool2d(1))
        self.fc = nn.Linear(512, 10)

    def forward(self, x):
        return self.fc(torch.flatten(self.features(x), 1))


class Metric:
    def __init__(self, name):
        self.name, self.sum, self.n = name, torch.tensor(0.), torch.tensor(0.)

    def update(self, val):
        self.sum += hvd.allreduce(val.detach().cpu(), name=self.name)
        self.n += 1

    @property
    def avg(self):
        return (self.sum / self.n).item()


def adjust_learning_rate(optimizer, epoch, batch_idx, n_batches, args):
    scale = hvd.size() * args.batches_per_allreduce
    if epoch < args.warmup_epochs:
        e = epoch + float(batch_idx + 1) / n_batches
        lr = args.base_lr * (1 + e * (scale - 1) / args.warmup_epochs)
    else:
        lr = args.base_lr * scale * (0.1 ** ((epoch - args.warmup_epochs) // 10))
    for g in optimizer.param_groups:
        g['lr'] = lr
    return lr


def main():
    args = get_args()
    hvd.init()
    torch.manual_seed(1234)
    use_cuda = torch.cuda.is_available()
    if use_cuda:
        torch.cuda.set_device(hvd.rank())
    device = torch.device('cuda' if use_cuda else 'cpu')

    is_root = hvd.rank() == 0
    writer = SummaryWriter(args.log_dir) if (is_root and SummaryWriter is not None) else None

    norm = T.Normalize((0.4914, 0.4822, 0.4465), (0.247, 0.243, 0.261))
    train_set = torchvision.datasets.CIFAR10(args.data_dir, train=True, download=False,
                                             transform=T.Compose([T.RandomCrop(32, padding=4),
                                                                  T.RandomHorizontalFlip(), T.ToTensor(), norm]))
    test_set = torchvision.datasets.CIFAR10(args.data_dir, train=False, download=False,
                                            transform=T.Compose([T.ToTensor(), norm]))
    # DistributedSampler gives every process its own slice of the data
    train_sampler = DistributedSampler(train_set)
    test_sampler = DistributedSampler(test_set, shuffle=False)
    train_loader = DataLoader(train_set, batch_size=args.batch_size * args.batches_per_allreduce,
                              sampler=train_sampler, num_workers=args.num_workers, pin_memory=use_cuda)
    test_loader = DataLoader(test_set, batch_size=args.batch_size, sampler=test_sampler,
                             num_workers=args.num_workers)

    model = Net().to(device)
    optimizer = optim.SGD(model.parameters(), lr=args.base_lr * hvd.size() * args.batches_per_allreduce,
                          momentum=0.9, weight_decay=5e-4)
    optimizer = hvd.DistributedOptimizer(optimizer, named_parameters=model.named_parameters(),
                                         compression=hvd.Compression.fp16 if args.fp16_allreduce
                                         else hvd.Compression.none,
                                         backward_passes_per_step=args.batches_per_allreduce)
    hvd.broadcast_parameters(model.state_dict(), root_rank=0)
    hvd.broadcast_optimizer_state(optimizer, root_rank=0)

    for epoch in range(args.epochs):
        model.train()
        train_sampler.set_epoch(epoch)
        train_loss, train_acc = Metric('train_loss'), Metric('train_acc')
        t0 = time.time()
        for batch_idx, (x, y) in enumerate(tqdm(train_loader, disable=not is_root, desc=f'epoch {epoch}')):
            lr = adjust_learning_rate(optimizer, epoch, batch_idx, len(train_loader), args)
            x, y = x.to(device), y.to(device)
            optimizer.zero_grad()
            for xs, ys in zip(x.split(args.batch_size), y.split(args.batch_size)):
                out = model(xs)
                loss = F.cross_entropy(out, ys)
                (loss / args.batches_per_allreduce).backward()
                train_loss.update(loss)
                train_acc.update((out.argmax(1) == ys).float().mean())
            optimizer.step()

        model.eval()
        val_loss, val_acc = Metric('val_loss'), Metric('val_acc')
        with torch.no_grad():
            for x, y in test_loader:
                x, y = x.to(device), y.to(device)
                out = model(x)
                val_loss.update(F.cross_entropy(out, y))
                val_acc.update((out.argmax(1) == y).float().mean())

        if is_root:
            print(f'epoch {epoch} | {time.time() - t0:.1f}s | lr {lr:.4f} | train loss {train_loss.avg:.3f} '
                  f'acc {train_acc.avg:.3f} | val loss {val_loss.avg:.3f} acc {val_acc.avg:.3f}')
            if writer is not None:
                writer.add_scalar('train/loss', train_loss.avg, epoch)
                writer.add_scalar('val/acc', val_acc.avg, epoch)
            os.makedirs(args.ckpt_dir, exist_ok=True)
            torch.save({'epoch': epoch, 'model': model.state_dict(), 'optimizer': optimizer.state_dict()},
                       os.path.join(args.ckpt_dir, f'cifar_epoch{epoch}.pt'))
    if writer is not None:
        writer.close()


if __name__ == '__main__':
    main()
