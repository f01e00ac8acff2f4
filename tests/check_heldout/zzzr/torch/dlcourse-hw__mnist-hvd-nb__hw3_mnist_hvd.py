#!/usr/bin/env python
# coding: utf-8

# # HW3 - MNIST on several GPUs with Horovod
# run: horovodrun -np 4 python hw3_mnist_hvd.py

# In[1]:


import argparse
import torch
import torch.nn as nn
import torch.nn.functional as F
import torch.optim as optim
from torchvision import datasets, transforms
import horovod.torch as hvd


# In[2]:


parser = argparse.ArgumentParser()
parser.add_argument('--batch-size', type=int, default=64)
parser.add_argument('--test-batch-size', type=int, default=1000)
parser.add_argument('--epochs', type=int, default=5)
parser.add_argument('--lr', type=float, default=0.01)
parser.add_argument('--seed', type=int, default=42)
parser.add_argument('--data-dir', default='./data')
args = parser.parse_args()
args.cuda = torch.cuda.is_available()


# In[3]:


# different seed per worker so dropout masks differ
torch.manual_seed(args.seed + hvd.rank())


# In[4]:


class Net(nn.Module):
    def __init__(self):
        super(Net, self).__init__()
        self.conv1 = nn.Conv2d(1, 10, kernel_size=5)
        self.conv2 = nn.Conv2d(10, 20, kernel_size=5)
        self.conv2_drop = nn.Dropout2d()
        self.fc1 = nn.Linear(320, 50)
        self.fc2 = nn.Linear(50, 10)

    def forward(self, x):
        x = F.relu(F.max_pool2d(self.conv1(x), 2))
        x = F.relu(F.max_pool2d(self.conv2_drop(self.conv2(x)), 2))
        x = x.view(-1, 320)
        x = F.relu(self.fc1(x))
        x = F.dropout(x, training=self.training)
        return F.log_softmax(x, dim=1)


# In[5]:


hvd.init()
if args.cuda:
    torch.cuda.set_device(hvd.rank())
print('worker', hvd.rank(), 'of', hvd.size())


# In[6]:


tfm = transforms.Compose([transforms.ToTensor(), transforms.Normalize((0.1307,), (0.3081,))])
train_dataset = datasets.MNIST(args.data_dir + '/data-%d' % hvd.rank(), train=True, download=True, transform=tfm)
test_dataset = datasets.MNIST(args.data_dir + '/data-%d' % hvd.rank(), train=False, transform=tfm)
train_sampler = torch.utils.data.distributed.DistributedSampler(
    train_dataset, num_replicas=hvd.size(), rank=hvd.rank())
test_sampler = torch.utils.data.distributed.DistributedSampler(
    test_dataset, num_replicas=hvd.size(), rank=hvd.rank())
train_loader = torch.utils.data.DataLoader(train_dataset, batch_size=args.batch_size, sampler=train_sampler)
test_loader = torch.utils.data.DataLoader(test_dataset, batch_size=args.test_batch_size, sampler=test_sampler)


# In[7]:


def metric_average(val, name):
    return hvd.allreduce(torch.tensor(val), name=name).item()


# In[8]:


model = Net()
if args.cuda:
    model.cuda()
optimizer = optim.SGD(model.parameters(), lr=args.lr * hvd.size(), momentum=0.5)
hvd.broadcast_parameters(model.state_dict(), root_rank=0)
hvd.broadcast_optimizer_state(optimizer, root_rank=0)
optimizer = hvd.DistributedOptimizer(optimizer, named_parameters=model.named_parameters())


# In[9]:


def train(epoch):
    model.train()
    train_sampler.set_epoch(epoch)
    for batch_idx, (data, target) in enumerate(train_loader):
        if args.cuda:
            data, target = data.cuda(), target.cuda()
        optimizer.zero_grad()
        loss = F.nll_loss(model(data), target)
        loss.backward()
        optimizer.step()
        if batch_idx % 50 == 0 and hvd.rank() == 0:
            print('epoch {} [{}/{}] loss {:.4f}'.format(
                epoch, batch_idx * len(data), len(train_sampler), loss.item()))


# In[10]:


def metric_average(val, name):
    tensor = torch.tensor(val)
    avg_tensor = hvd.allreduce(tensor, name=name, op=hvd.Average)
    return avg_tensor.item()


def test():
    model.eval()
    test_loss, test_acc = 0., 0.
    with torch.no_grad():
        for data, target in test_loader:
            if args.cuda:
                data, target = data.cuda(), target.cuda()
            output = model(data)
            test_loss += F.nll_loss(output, target, reduction='sum').item()
            pred = output.max(1, keepdim=True)[1]
            test_acc += pred.eq(target.view_as(pred)).cpu().float().sum().item()
    test_loss /= len(test_sampler)
    test_acc /= len(test_sampler)
    test_loss = metric_average(test_loss, 'avg_loss')
    test_acc = metric_average(test_acc, 'avg_accuracy')
    if hvd.rank() == 0:
        print('Test set: Average loss: {:.4f}, Accuracy: {:.2f}%'.format(test_loss, 100. * test_acc))


# In[11]:


for epoch in range(1, args.epochs + 1):
    train(epoch)
    test()
    if hvd.rank() == 0:
        torch.save(model.state_dict(), 'mnist_hvd_epoch%d.pt' % epoch)


# In[ ]:
