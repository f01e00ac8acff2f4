import os
import sys
import time
import glob
import logging
import argparse

import numpy as np
import torch
import torch.nn as nn
import torchvision.datasets as dset
import torchvision.transforms as transforms
from torch.utils.data import Subset, DataLoader
from torch.utils.data.distributed import DistributedSampler
import horovod.torch as hvd

import utils
from darts import SearchNetwork, Architect, derive_genotype

parser = argparse.ArgumentParser("darts-lite search")
parser.add_argument('--data', type=str, default='../data', help='location of the data corpus')
parser.add_argument('--batch_size', type=int, default=64, help='batch size per GPU')
parser.add_argument('--learning_rate', type=float, default=0.025, help='init learning rate')
parser.add_argument('--learning_rate_min', type=float, default=0.001, help='min learning rate')
parser.add_argument('--momentum', type=float, default=0.9)
parser.add_argument('--weight_decay', type=float, default=3e-4)
parser.add_argument('--epochs', type=int, default=50)
parser.add_argument('--init_channels', type=int, default=16)
parser.add_argument('--edges', type=int, default=6)
parser.add_argument('--train_portion', type=float, default=0.5)
parser.add_argument('--arch_learning_rate', type=float, default=3e-4)
parser.add_argument('--arch_weight_decay', type=float, default=1e-3)
parser.add_argument('--grad_clip', type=float, default=5)
parser.add_argument('--seed', type=int, default=2)
parser.add_argument('--save', type=str, default='EXP')
args = parser.parse_args()

hvd.init()
torch.cuda.set_device(hvd.local_rank()) if torch.cuda.is_available() else None

args.save = 'search-{}-{}'.format(args.save, time.strftime("%Y%m%d-%H%M%S"))
log_format = '%(asctime)s %(message)s'
logging.basicConfig(stream=sys.stdout, level=logging.INFO if hvd.rank() == 0 else logging.ERROR,
                    format=log_format, datefmt='%m/%d %I:%M:%S %p')


def train(train_queue, valid_queue, model, architect, criterion, optimizer, epoch):
    objs, top1 = utils.AverageMeter(), utils.AverageMeter()
    model.train()
    valid_iter = iter(valid_queue)
    for step, (x, target) in enumerate(train_queue):
        try:
            x_search, target_search = next(valid_iter)
        except StopIteration:
            valid_iter = iter(valid_queue)
            x_search, target_search = next(valid_iter)
        if torch.cuda.is_available():
            x, target = x.cuda(non_blocking=True), target.cuda(non_blocking=True)
            x_search, target_search = x_search.cuda(), target_search.cuda()

        architect.step(x_search, target_search)

        optimizer.zero_grad()
        logits = model(x)
        loss = criterion(logits, target)
        loss.backward()
        optimizer.synchronize()
        nn.utils.clip_grad_norm_(model.weights(), args.grad_clip)
        with optimizer.skip_synchronize():
            optimizer.step()

        objs.update(loss.item(), x.size(0))
        top1.update(utils.accuracy(logits, target), x.size(0))
        if step % 50 == 0:
            logging.info('train %03d e%d %e %f', step, epoch, objs.avg, top1.avg)
    return top1.avg, objs.avg


@torch.no_grad()
def infer(valid_queue, model, criterion):
    top1 = utils.AverageMeter()
    model.eval()
    for x, target in valid_queue:
        if torch.cuda.is_available():
            x, target = x.cuda(), target.cuda()
        top1.update(utils.accuracy(model(x), target), x.size(0))
    return hvd.allreduce(torch.tensor(top1.avg), name='valid_acc').item()


def main():
    np.random.seed(args.seed)
    torch.manual_seed(args.seed)
    logging.info("args = %s", args)

    criterion = nn.CrossEntropyLoss()
    model = SearchNetwork(args.init_channels, args.edges)
    if torch.cuda.is_available():
        model = model.cuda()

    optimizer = torch.optim.SGD(model.weights(), args.learning_rate * hvd.size(),
                                momentum=args.momentum, weight_decay=args.weight_decay)
    optimizer = hvd.DistributedOptimizer(optimizer, named_parameters=model.named_weights())
    hvd.broadcast_parameters(model.state_dict(), root_rank=0)
    hvd.broadcast_optimizer_state(optimizer, root_rank=0)

    train_transform = transforms.Compose([transforms.RandomHorizontalFlip(), transforms.ToTensor()])
    train_data = dset.CIFAR10(root=args.data, train=True, download=False, transform=train_transform)
    num_train = len(train_data)
    split = int(np.floor(args.train_portion * num_train))
    w_set, a_set = Subset(train_data, range(split)), Subset(train_data, range(split, num_train))
    w_sampler = DistributedSampler(w_set, num_replicas=hvd.size(), rank=hvd.rank())
    a_sampler = DistributedSampler(a_set, num_replicas=hvd.size(), rank=hvd.rank())
    train_queue = DataLoader(w_set, batch_size=args.batch_size, sampler=w_sampler, num_workers=2, drop_last=True)
    valid_queue = DataLoader(a_set, batch_size=args.batch_size, sampler=a_sampler, num_workers=2)

    scheduler = torch.optim.lr_scheduler.CosineAnnealingLR(
        optimizer, float(args.epochs), eta_min=args.learning_rate_min)
    architect = Architect(model, criterion, args.arch_learning_rate, args.arch_weight_decay)

    best_acc = 0.0
    for epoch in range(args.epochs):
        w_sampler.set_epoch(epoch)
        a_sampler.set_epoch(epoch)
        logging.info('epoch %d lr %e genotype %s', epoch, scheduler.get_last_lr()[0],
                     derive_genotype(model.alphas))

        train_acc, train_obj = train(train_queue, valid_queue, model, architect, criterion, optimizer, epoch)
        scheduler.step()
        valid_acc = infer(valid_queue, model, criterion)
        logging.info('train_acc %f valid_acc %f', train_acc, valid_acc)

        is_best = valid_acc > best_acc
        best_acc = max(best_acc, valid_acc)
        utils.save_checkpoint({'epoch': epoch + 1,
                               'state_dict': model.state_dict(),
                               'optimizer': optimizer.state_dict(),
                               'arch_optimizer': architect.state_dict(),
                               'genotype': derive_genotype(model.alphas),
                               'best_acc': best_acc}, args.save, is_best)


if __name__ == '__main__':
    main()
