import os, sys, time, math, random
import argparse
import numpy as np
import torch
import torch.nn as nn
import torch.optim as optim
import horovod.torch as hvd
import torch.utils.data as tud

# ------------------------------------------------------------------ options
ap = argparse.ArgumentParser(description='C3D HMDB-51 horovod')
ap.add_argument('--data-root', default='data/hmdb51_frames')
ap.add_argument('--bs', type=int, default=10)
ap.add_argument('--accum', type=int, default=4, help='gradient accumulation steps')
ap.add_argument('--lr', type=float, default=0.003)
ap.add_argument('--epochs', type=int, default=45)
ap.add_argument('--step', type=int, default=15)
ap.add_argument('--snapshot', default='snapshots/c3d')
ap.add_argument('--seed', type=int, default=7)
opt = ap.parse_args()

hvd.init()
random.seed(opt.seed); np.random.seed(opt.seed); torch.manual_seed(opt.seed)
device = 'cuda' if torch.cuda.is_available() else 'cpu'
if hvd.rank() == 0:
    print('world size', hvd.size(), opt)

# ------------------------------------------------------------------ data
class HMDBFrames(tud.Dataset):
    # reads 16 consecutive jpgs per clip in the original; random tensors here
    def __init__(self, root, train=True, n=255):
        self.root, self.train, self.n = root, train, n
    def __len__(self):
        return self.n
    def __getitem__(self, i):
        g = torch.Generator().manual_seed(i * 2 + int(self.train))
        return torch.rand(3, 16, 56, 56, generator=g), i % 51

trainset = HMDBFrames(opt.data_root, True)
valset = HMDBFrames(opt.data_root, False, n=102)
train_sampler = tud.distributed.DistributedSampler(trainset, num_replicas=hvd.size(), rank=hvd.rank())
val_sampler = tud.distributed.DistributedSampler(valset, num_replicas=hvd.size(), rank=hvd.rank(), shuffle=False)
trainloader = tud.DataLoader(trainset, batch_size=opt.bs, sampler=train_sampler, num_workers=2)
valloader = tud.DataLoader(valset, batch_size=opt.bs, sampler=val_sampler, num_workers=2)

# ------------------------------------------------------------------ model
class C3D(nn.Module):
    def __init__(self, num_classes=51):
        super(C3D, self).__init__()
        self.conv1 = nn.Conv3d(3, 16, 3, padding=1)
        self.pool1 = nn.MaxPool3d((1, 2, 2))
        self.conv2 = nn.Conv3d(16, 32, 3, padding=1)
        self.pool2 = nn.MaxPool3d(2)
        self.conv3 = nn.Conv3d(32, 64, 3, padding=1)
        self.pool3 = nn.AdaptiveMaxPool3d(1)
        self.fc6 = nn.Linear(64, 128)
        self.fc8 = nn.Linear(128, num_classes)
        self.relu = nn.ReLU()
        self.dropout = nn.Dropout(0.5)
    def forward(self, x):
        x = self.pool1(self.relu(self.conv1(x)))
        x = self.pool2(self.relu(self.conv2(x)))
        x = self.pool3(self.relu(self.conv3(x))).flatten(1)
        x = self.dropout(self.relu(self.fc6(x)))
        return self.fc8(x)

net = C3D().to(device)
criterion = nn.CrossEntropyLoss()
optimizer = optim.SGD(net.parameters(), lr=opt.lr * hvd.size(), momentum=0.9, weight_decay=5e-4)
optimizer = hvd.DistributedOptimizer(optimizer, named_parameters=net.named_parameters())
scheduler = optim.lr_scheduler.StepLR(optimizer, step_size=opt.step, gamma=0.1)
hvd.broadcast_parameters(net.state_dict(), root_rank=0)
hvd.broadcast_optimizer_state(optimizer, root_rank=0)

# ------------------------------------------------------------------ train
best_acc = 0.0
for epoch in range(opt.epochs):
    net.train()
    train_sampler.set_epoch(epoch)
    t0 = time.time()
    running = 0.0
    optimizer.zero_grad()
    for i, (inputs, labels) in enumerate(trainloader):
        inputs, labels = inputs.to(device), labels.to(device)
        loss = criterion(net(inputs), labels) / opt.accum
        loss.backward()
        running += loss.item()
        if (i + 1) % opt.accum == 0:
            optimizer.step()
            optimizer.zero_grad()
    scheduler.step()

    net.eval()
    correct = torch.zeros(1); total = torch.zeros(1)
    with torch.no_grad():
        for inputs, labels in valloader:
            pred = net(inputs.to(device)).argmax(1).cpu()
            correct += (pred == labels).sum(); total += labels.size(0)
    correct = hvd.allreduce(correct, op=hvd.Sum, name='correct')
    total = hvd.allreduce(total, op=hvd.Sum, name='total')
    acc = (correct / total).item()
    if hvd.rank() == 0:
        print('[%d] loss %.4f  val acc %.4f  (%.1fs)' % (epoch, running, acc, time.time() - t0))
        if acc > best_acc:
            best_acc = acc
            os.makedirs(opt.snapshot, exist_ok=True)
            torch.save(net.state_dict(), os.path.join(opt.snapshot, 'c3d_best.pth'))
