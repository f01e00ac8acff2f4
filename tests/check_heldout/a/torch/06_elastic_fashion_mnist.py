# Elastic Horovod training of a small CNN on FashionMNIST (spot instances / preemptible nodes)
#   horovodrun -np 4 --min-np 2 --max-np 8 --host-discovery-script ./discover_hosts.sh \
#       python 06_elastic_fashion_mnist.py
import argparse
import os

import torch
import torch.nn as nn
import torch.nn.functional as F
import torch.optim as optim
import torch.utils.data
from torchvision import datasets, transforms
import horovod.torch as hvd

parser = argparse.ArgumentParser(description='elastic fashion-mnist')
parser.add_argument('--batch-size', type=int, default=64)
parser.add_argument('--epochs', type=int, default=20)
parser.add_argument('--lr', type=float, default=0.01)
parser.add_argument('--momentum', type=float, default=0.9)
parser.add_argument('--batches-per-commit', type=int, default=50)
parser.add_argument('--data-dir', default='./data')
parser.add_argument('--save', default='fmnist_elastic.pt')
args = parser.parse_args()

hvd.init()
use_cuda = torch.cuda.is_available()
if use_cuda:
    torch.cuda.set_device(hvd.local_rank())
torch.manual_seed(1234)

tfm = transforms.Compose([transforms.ToTensor(), transforms.Normalize((0.2860,), (0.3530,))])
train_dataset = datasets.FashionMNIST(args.data_dir, train=True, download=False, transform=tfm)
test_dataset = datasets.FashionMNIST(args.data_dir, train=False, download=False, transform=tfm)

# ElasticSampler re-partitions the remaining samples whenever the world changes
train_sampler = hvd.elastic.ElasticSampler(train_dataset, shuffle=True)
train_loader = torch.utils.data.DataLoader(train_dataset, batch_size=args.batch_size,
                                           sampler=train_sampler, num_workers=2)
test_sampler = hvd.elastic.ElasticSampler(test_dataset, shuffle=False)
test_loader = torch.utils.data.DataLoader(test_dataset, batch_size=500, sampler=test_sampler)


class SmallCNN(nn.Module):
    def __init__(self):
        super().__init__()
        self.features = nn.Sequential(
            nn.Conv2d(1, 32, 3, padding=1), nn.ReLU(), nn.MaxPool2d(2),
            nn.Conv2d(32, 64, 3, padding=1), nn.ReLU(), nn.MaxPool2d(2))
        self.classifier = nn.Sequential(nn.Flatten(), nn.Linear(64 * 7 * 7, 256), nn.ReLU(),
                                        nn.Dropout(0.3), nn.Linear(256, 10))

    def forward(self, x):
        return self.classifier(self.features(x))


model = SmallCNN()
if use_cuda:
    model.cuda()

lr_scaler = hvd.size()
optimizer = optim.SGD(model.parameters(), lr=args.lr * lr_scaler, momentum=args.momentum)
optimizer = hvd.DistributedOptimizer(optimizer, named_parameters=model.named_parameters())


def test():
    model.eval()
    loss_sum = torch.zeros(1)
    correct = torch.zeros(1)
    count = torch.zeros(1)
    with torch.no_grad():
        for data, target in test_loader:
            if use_cuda:
                data, target = data.cuda(), target.cuda()
            output = model(data)
            loss_sum += F.cross_entropy(output, target, reduction='sum').item()
            correct += (output.argmax(1) == target).sum().item()
            count += target.numel()
    totals = hvd.allreduce(torch.cat([loss_sum, correct, count]), op=hvd.Sum, name='test_totals')
    return (totals[0] / totals[2]).item(), (totals[1] / totals[2]).item()


@hvd.elastic.run
def train(state):
    for state.epoch in range(state.epoch, args.epochs):
        model.train()
        state.train_sampler.set_epoch(state.epoch)
        steps_remaining = len(train_loader)
        for state.batch, (data, target) in enumerate(train_loader):
            if use_cuda:
                data, target = data.cuda(), target.cuda()
            optimizer.zero_grad()
            loss = F.cross_entropy(model(data), target)
            loss.backward()
            optimizer.step()
            state.train_sampler.record_batch(state.batch, args.batch_size)
            if state.batch % args.batches_per_commit == 0:
                state.commit()
            steps_remaining -= 1

        test_sampler.set_epoch(state.epoch)
        test_loss, test_acc = test()
        if hvd.rank() == 0:
            print('epoch {} test loss {:.4f} acc {:.2f}%'.format(state.epoch, test_loss, 100 * test_acc))
            torch.save({'model': model.state_dict(), 'epoch': state.epoch}, args.save)
        state.commit()


def on_state_reset():
    # world size changed: rescale the learning rate to the new number of workers
    for param_group in optimizer.param_groups:
        param_group['lr'] = args.lr * hvd.size()


state = hvd.elastic.TorchState(model, optimizer, train_sampler=train_sampler, epoch=0, batch=0)
state.register_reset_callbacks([on_state_reset])
train(state)
