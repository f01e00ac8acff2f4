# Fine-tune an ImageNet MobileNetV2 on a small image-folder dataset with Horovod.
# The backbone gets a small lr, the new classifier head its own (larger) lr.
#
#   horovodrun -np 4 python train_mobilenet.py --data /data/flowers102 --num-classes 102
import argparse
import math
import os

import torch
import torch.nn as nn
import torch.nn.functional as F
import torch.utils.data.distributed
from torchvision import datasets, models, transforms
import horovod.torch as hvd
from tqdm import tqdm

parser = argparse.ArgumentParser(description='MobileNetV2 fine-tuning with Horovod')
parser.add_argument('--data', default='/data/flowers102', help='folder with train/ and val/')
parser.add_argument('--num-classes', type=int, default=102)
parser.add_argument('--batch-size', type=int, default=64, help='per worker')
parser.add_argument('--epochs', type=int, default=25)
parser.add_argument('--lr', type=float, default=0.001, help='backbone lr for one worker')
parser.add_argument('--head-lr', type=float, default=0.01, help='head lr for one worker')
parser.add_argument('--warmup-epoch', type=int, default=2)
parser.add_argument('--fp16-allreduce', action='store_true', default=False)
parser.add_argument('--checkpoint', default='./mobilenet_ft.pth')
parser.add_argument('--no-cuda', action='store_true', default=False)


class Metric(object):
    def __init__(self, name):
        self.name = name
        self.sum = torch.tensor(0.)
        self.n = torch.tensor(0.)

    def update(self, val):
        self.sum += hvd.allreduce(val.detach().cpu(), name=self.name)
        self.n += 1

    @property
    def avg(self):
        return self.sum / self.n


def adjust_learning_rate(optimizers, epoch, batch_idx, num_batches):
    # warm up from lr / size to lr over the first epochs, then cosine
    progress = epoch + float(batch_idx + 1) / num_batches
    if progress < args.warmup_epochs:
        factor = (progress * (hvd.size() - 1) / args.warmup_epochs + 1) / hvd.size()
    else:
        factor = 0.5 * (1 + math.cos(math.pi * (progress - args.warmup_epochs) / (args.epochs - args.warmup_epochs)))
    for opt, base in zip(optimizers, (args.lr, args.head_lr)):
        for group in opt.param_groups:
            group['lr'] = base * hvd.size() * factor


def main():
    global args
    args = parser.parse_args()
    args.cuda = not args.no_cuda and torch.cuda.is_available()

    hvd.init()
    if args.cuda:
        torch.cuda.set_device(hvd.local_rank())
    torch.set_num_threads(2)
    verbose = hvd.rank() == 0

    normalize = transforms.Normalize(mean=[0.485, 0.456, 0.406], std=[0.229, 0.224, 0.225])
    train_dataset = datasets.ImageFolder(os.path.join(args.data, 'train'), transforms.Compose([
        transforms.RandomResizedCrop(224), transforms.RandomHorizontalFlip(), transforms.ToTensor(), normalize]))
    val_dataset = datasets.ImageFolder(os.path.join(args.data, 'val'), transforms.Compose([
        transforms.Resize(256), transforms.CenterCrop(224), transforms.ToTensor(), normalize]))
    train_sampler = torch.utils.data.distributed.DistributedSampler(
        train_dataset, num_replicas=hvd.size(), rank=hvd.rank())
    val_sampler = torch.utils.data.distributed.DistributedSampler(
        val_dataset, num_replicas=hvd.size(), rank=hvd.rank(), shuffle=False)
    train_loader = torch.utils.data.DataLoader(train_dataset, batch_size=args.batch_size,
                                               sampler=train_sampler, num_workers=4)
    val_loader = torch.utils.data.DataLoader(val_dataset, batch_size=args.batch_size,
                                             sampler=val_sampler, num_workers=4)

    model = models.mobilenet_v2(weights=models.MobileNet_V2_Weights.IMAGENET1K_V1)
    # make sure every worker starts from the same weights
    hvd.broadcast_parameters(model.state_dict(), root_rank=0)
    # new head for our classes
    model.classifier[1] = nn.Linear(model.last_channel, args.num_classes)
    if args.cuda:
        model.cuda()

    backbone_opt = torch.optim.SGD(model.features.parameters(), lr=args.lr * hvd.size(), momentum=0.9)
    backbone_opt = hvd.DistributedOptimizer(
        backbone_opt, named_parameters=model.features.named_parameters(),
        compression=hvd.Compression.fp16 if args.fp16_allreduce else hvd.Compression.none)
    head_opt = torch.optim.Adam(model.classifier.parameters(), lr=args.head_lr * hvd.size())
    hvd.broadcast_optimizer_state(backbone_opt, root_rank=0)

    best_acc = 0.0
    for epoch in range(args.epochs):
        model.train()
        train_sampler.set_epoch(epoch)
        train_loss = Metric('train_loss')
        for batch_idx, (data, target) in enumerate(tqdm(train_loader, disable=not verbose)):
            adjust_learning_rate([backbone_opt, head_opt], epoch, batch_idx, len(train_loader))
            if args.cuda:
                data, target = data.cuda(), target.cuda()
            backbone_opt.zero_grad()
            head_opt.zero_grad()
            loss = F.cross_entropy(model(data), target)
            loss.backward()
            backbone_opt.step()
            head_opt.step()
            train_loss.update(loss)

        model.eval()
        val_loss, val_acc = Metric('val_loss'), Metric('val_acc')
        with torch.no_grad():
            for data, target in val_loader:
                if args.cuda:
                    data, target = data.cuda(), target.cuda()
                output = model(data)
                val_loss.update(F.cross_entropy(output, target))
                val_acc.update(output.argmax(1).eq(target).float().mean())
        if verbose:
            print('epoch {}: train loss {:.4f}, val loss {:.4f}, val acc {:.2%}'.format(
                epoch, train_loss.avg.item(), val_loss.avg.item(), val_acc.avg.item()))
            if val_acc.avg.item() > best_acc:
                best_acc = val_acc.avg.item()
                torch.save(model.state_dict(), args.checkpoint)


if __name__ == '__main__':
    main()
