# TRADES (Zhang et al., ICML 2019) on CIFAR-10 with WideResNet-34-10, multi-GPU via Horovod.
# Based on the authors' train_trades_cifar10.py; the data-parallel parts are ours.
from __future__ import print_function

import argparse
import os

import torch
import torch.nn as nn
import torch.nn.functional as F
import torch.optim as optim
import horovod.torch as hvd
from torchvision import datasets, transforms

parser = argparse.ArgumentParser(description='PyTorch CIFAR TRADES Adversarial Training (Horovod)')
parser.add_argument('--batch-size', type=int, default=128, metavar='N')
parser.add_argument('--test-batch-size', type=int, default=128, metavar='N')
parser.add_argument('--epochs', type=int, default=76, metavar='N')
parser.add_argument('--weight-decay', '--wd', default=2e-4, type=float, metavar='W')
parser.add_argument('--lr', type=float, default=0.1, metavar='LR')
parser.add_argument('--momentum', type=float, default=0.9, metavar='M')
parser.add_argument('--eps', default=0.031, type=float, help='perturbation')
parser.add_argument('--num-steps', default=10, type=int, help='perturb number of steps')
parser.add_argument('--step-size', default=0.007, type=float, help='perturb step size')
parser.add_argument('--beta', default=6.0, type=float, help='regularization, i.e., 1/lambda in TRADES')
parser.add_argument('--seed', type=int, default=1, metavar='S')
parser.add_argument('--log-interval', type=int, default=100, metavar='N')
parser.add_argument('--model-dir', default='./model-cifar-wideResNet')
parser.add_argument('--save-freq', '-s', default=1, type=int, metavar='N')
args = parser.parse_args()

hvd.init()
torch.manual_seed(args.seed)
use_cuda = torch.cuda.is_available()
if use_cuda:
    torch.cuda.set_device(hvd.local_rank())
    torch.cuda.manual_seed(args.seed)
device = torch.device("cuda" if use_cuda else "cpu")
kwargs = {'num_workers': 2, 'pin_memory': True} if use_cuda else {}
if hvd.rank() == 0 and not os.path.exists(args.model_dir):
    os.makedirs(args.model_dir)

transform_train = transforms.Compose([
    transforms.RandomCrop(32, padding=4),
    transforms.RandomHorizontalFlip(),
    transforms.ToTensor(),
])
trainset = datasets.CIFAR10(root='../data', train=True, download=False, transform=transform_train)
train_sampler = torch.utils.data.distributed.DistributedSampler(trainset, num_replicas=hvd.size(), rank=hvd.rank())
train_loader = torch.utils.data.DataLoader(trainset, batch_size=args.batch_size, sampler=train_sampler, **kwargs)
testset = datasets.CIFAR10(root='../data', train=False, download=False, transform=transforms.ToTensor())
test_sampler = torch.utils.data.distributed.DistributedSampler(testset, num_replicas=hvd.size(), rank=hvd.rank(), shuffle=False)
test_loader = torch.utils.data.DataLoader(testset, batch_size=args.test_batch_size, sampler=test_sampler, **kwargs)


class BasicBlock(nn.Module):
    def __init__(self, cin, cout, stride):
        super(BasicBlock, self).__init__()
        self.bn1 = nn.BatchNorm2d(cin)
        self.conv1 = nn.Conv2d(cin, cout, 3, stride, 1, bias=False)
        self.bn2 = nn.BatchNorm2d(cout)
        self.conv2 = nn.Conv2d(cout, cout, 3, 1, 1, bias=False)
        self.short = None if (cin == cout and stride == 1) else nn.Conv2d(cin, cout, 1, stride, bias=False)

    def forward(self, x):
        o = F.relu(self.bn1(x))
        y = self.conv1(o)
        y = self.conv2(F.relu(self.bn2(y)))
        return y + (x if self.short is None else self.short(o))


class WideResNet(nn.Module):
    def __init__(self, depth=34, widen=10, num_classes=10):
        super(WideResNet, self).__init__()
        n = (depth - 4) // 6
        w = [16, 16 * widen, 32 * widen, 64 * widen]
        self.conv1 = nn.Conv2d(3, w[0], 3, 1, 1, bias=False)
        blocks = []
        for i, stride in enumerate([1, 2, 2]):
            for j in range(n):
                blocks.append(BasicBlock(w[i] if j == 0 else w[i + 1], w[i + 1], stride if j == 0 else 1))
        self.blocks = nn.Sequential(*blocks)
        self.bn = nn.BatchNorm2d(w[3])
        self.fc = nn.Linear(w[3], num_classes)

    def forward(self, x):
        out = F.relu(self.bn(self.blocks(self.conv1(x))))
        return self.fc(F.adaptive_avg_pool2d(out, 1).flatten(1))


def trades_loss(model, x_natural, y, optimizer, step_size=0.003, epsilon=0.031, perturb_steps=10, beta=1.0):
    criterion_kl = nn.KLDivLoss(reduction='sum')
    model.eval()
    batch_size = len(x_natural)
    x_adv = x_natural.detach() + 0.001 * torch.randn(x_natural.shape, device=x_natural.device)
    for _ in range(perturb_steps):
        x_adv.requires_grad_()
        with torch.enable_grad():
            loss_kl = criterion_kl(F.log_softmax(model(x_adv), dim=1), F.softmax(model(x_natural), dim=1))
        grad = torch.autograd.grad(loss_kl, [x_adv])[0]
        x_adv = x_adv.detach() + step_size * torch.sign(grad.detach())
        x_adv = torch.min(torch.max(x_adv, x_natural - epsilon), x_natural + epsilon)
        x_adv = torch.clamp(x_adv, 0.0, 1.0)
    model.train()
    x_adv = x_adv.detach()
    optimizer.zero_grad()
    logits = model(x_natural)
    loss_natural = F.cross_entropy(logits, y)
    loss_robust = (1.0 / batch_size) * criterion_kl(F.log_softmax(model(x_adv), dim=1), F.softmax(logits, dim=1))
    return loss_natural + beta * loss_robust


def pgd_whitebox(model, X, y, epsilon, num_steps=20, step_size=0.003):
    X_pgd = X.clone() + torch.empty_like(X).uniform_(-epsilon, epsilon)
    for _ in range(num_steps):
        X_pgd.requires_grad_()
        with torch.enable_grad():
            loss = F.cross_entropy(model(X_pgd), y)
        grad = torch.autograd.grad(loss, [X_pgd])[0]
        eta = step_size * grad.sign()
        X_pgd = X_pgd.detach() + eta
        X_pgd = torch.min(torch.max(X_pgd, X - epsilon), X + epsilon).clamp(0, 1)
    return X_pgd.detach()


def train(model, optimizer, epoch):
    model.train()
    train_sampler.set_epoch(epoch)
    for batch_idx, (data, target) in enumerate(train_loader):
        data, target = data.to(device), target.to(device)
        loss = trades_loss(model=model, x_natural=data, y=target, optimizer=optimizer,
                           step_size=args.step_size, epsilon=args.epsilon,
                           perturb_steps=args.num_steps, beta=args.beta)
        loss.backward()
        optimizer.step()
        if batch_idx % args.log_interval == 0 and hvd.rank() == 0:
            print('Train Epoch: {} [{}/{}]\tLoss: {:.6f}'.format(
                epoch, batch_idx * len(data), len(train_sampler), loss.item()))


def eval_adv_test(model):
    model.eval()
    natural_err, robust_err, total = 0, 0, 0
    for data, target in test_loader:
        data, target = data.to(device), target.to(device)
        x_adv = pgd_whitebox(model, data, target, args.eps)
        with torch.no_grad():
            natural_err += (model(data).argmax(1) != target).sum().item()
            robust_err += (model(x_adv).argmax(1) != target).sum().item()
        total += len(target)
    return natural_err / total, robust_err / total


def adjust_learning_rate(optimizer, epoch):
    lr = args.lr
    if epoch >= 75:
        lr = args.lr * 0.1
    for param_group in optimizer.param_groups:
        param_group['lr'] = lr


def main():
    model = WideResNet().to(device)
    optimizer = optim.SGD(model.parameters(), lr=args.lr, momentum=args.momentum, weight_decay=args.weight_decay)
    optimizer = hvd.DistributedOptimizer(optimizer, named_parameters=model.named_parameters())
    hvd.broadcast_parameters(model.state_dict(), root_rank=0)
    hvd.broadcast_optimizer_state(optimizer, root_rank=0)

    for epoch in range(1, args.epochs + 1):
        adjust_learning_rate(optimizer, epoch)
        train(model, optimizer, epoch)
        nat_err, rob_err = eval_adv_test(model)
        if hvd.rank() == 0:
            print('================================================================')
            print('epoch {}: natural acc {:.4f}, robust acc (PGD-20) {:.4f}'.format(epoch, 1 - nat_err, 1 - rob_err))
            if epoch % args.save_freq == 0:
                torch.save(model.state_dict(), os.path.join(args.model_dir, 'model-wideres-epoch{}.pt'.format(epoch)))
                torch.save(optimizer.state_dict(), os.path.join(args.model_dir, 'opt-wideres-checkpoint_epoch{}.tar'.format(epoch)))


if __name__ == '__main__':
    main()
