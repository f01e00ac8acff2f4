"""
PixelCNN (gated, van den Oord et al. 2016) on binarized / 4-bit MNIST, multi-GPU with horovod.

    mpirun -np 8 -bind-to none -map-by slot python train_pixelcnn.py --epochs 30

TODO: port the discretized logistic mixture from pixelcnn++
"""
import argparse
import math
import os
import time

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F
import horovod.torch as hvd
from torchvision.utils import save_image

parser = argparse.ArgumentParser()
parser.add_argument('--data', type=str, default='data/mnist.npz')
parser.add_argument('--levels', type=int, default=4, help='quantisation levels per pixel')
parser.add_argument('--batch-size', type=int, default=64)
parser.add_argument('--test-batch-size', type=int, default=256)
parser.add_argument('--epochs', type=int, default=30)
parser.add_argument('--lr', type=float, default=3e-4)
parser.add_argument('--n-layers', type=int, default=8)
parser.add_argument('--hidden', type=int, default=64)
parser.add_argument('--save-dir', type=str, default='pixelcnn_out')
parser.add_argument('--sample-every', type=int, default=5)
parser.add_argument('--seed', type=int, default=42)
args = parser.parse_args()

hvd.init()
torch.manual_seed(args.seed)
cuda = torch.cuda.is_available()
if cuda:
    torch.cuda.set_device(hvd.local_rank())
    torch.cuda.manual_seed(args.seed)
device = torch.device('cuda' if cuda else 'cpu')


class MaskedConv2d(nn.Conv2d):
    def __init__(self, mask_type, *a, **kw):
        super().__init__(*a, **kw)
        assert mask_type in ('A', 'B')
        self.register_buffer('mask', torch.ones_like(self.weight))
        _, _, kh, kw_ = self.weight.shape
        self.mask[:, :, kh // 2, kw_ // 2 + (mask_type == 'B'):] = 0
        self.mask[:, :, kh // 2 + 1:] = 0

    def forward(self, x):
        return F.conv2d(x, self.weight * self.mask, self.bias, self.stride, self.padding)


class PixelCNN(nn.Module):
    def __init__(self, levels, hidden=64, n_layers=8):
        super().__init__()
        layers = [MaskedConv2d('A', 1, hidden, 7, padding=3), nn.BatchNorm2d(hidden), nn.ReLU(True)]
        for _ in range(n_layers - 1):
            layers += [MaskedConv2d('B', hidden, hidden, 3, padding=1), nn.BatchNorm2d(hidden), nn.ReLU(True)]
        layers += [nn.Conv2d(hidden, levels, 1)]
        self.net = nn.Sequential(*layers)
        self.levels = levels

    def forward(self, x):
        # x: integer image in [0, levels) -> logits over levels
        return self.net(x.float() / (self.levels - 1))

    @torch.no_grad()
    def sample(self, n, dev):
        x = torch.zeros(n, 1, 28, 28, device=dev)
        for i in range(28):
            for j in range(28):
                probs = F.softmax(self(x)[:, :, i, j], dim=1)
                x[:, 0, i, j] = torch.multinomial(probs, 1).squeeze(1).float()
        return x / (self.levels - 1)


def quantise(x, levels):
    return torch.clamp((x * levels).long(), max=levels - 1)


d = np.load(args.data)
x_train = quantise(torch.from_numpy(d['x_train']).float().div(255.).unsqueeze(1), args.levels)
x_test = quantise(torch.from_numpy(d['x_test']).float().div(255.).unsqueeze(1), args.levels)

train_loader = torch.utils.data.DataLoader(torch.utils.data.TensorDataset(x_train), batch_size=args.batch_size,
                                           shuffle=True, drop_last=True, num_workers=2)
test_loader = torch.utils.data.DataLoader(torch.utils.data.TensorDataset(x_test), batch_size=args.test_batch_size,
                                          shuffle=False)

model = PixelCNN(args.levels, args.hidden, args.n_layers).to(device)
optimizer = torch.optim.Adam(model.parameters(), lr=args.lr)
scheduler = torch.optim.lr_scheduler.ExponentialLR(optimizer, gamma=args.lr_decay)

hvd.broadcast_parameters(model.state_dict(), root_rank=0)
hvd.broadcast_optimizer_state(optimizer, root_rank=0)
optimizer = hvd.DistributedOptimizer(optimizer, named_parameters=model.named_parameters())

n_dims = 28 * 28


def metric_average(val, name):
    t = torch.tensor(val)
    return hvd.allreduce(t, name=name).item()


def test(epoch):
    # every worker runs the whole test set, no sampler
    model.eval()
    nll, n = 0.0, 0
    with torch.no_grad():
        for (x,) in test_loader:
            x = x.to(device)
            nll += F.cross_entropy(model(x), x.squeeze(1), reduction='sum').item()
            n += x.size(0)
    bpd = nll / (n * n_dims * math.log(2))
    if hvd.rank() == 0:
        print('==> epoch %d test bpd %.4f' % (epoch, bpd))
    return bpd


for epoch in range(1, args.epochs + 1):
    model.train()
    t0 = time.time()
    running = 0.
    for batch_idx, (x,) in enumerate(train_loader):
        x = x.to(device)
        logits = model(x)
        loss = F.cross_entropy(logits, x.squeeze(1))
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        running += loss.item()
        if batch_idx % 100 == 0 and hvd.rank() == 0:
            print('epoch {} [{}/{}] nll/dim {:.4f}'.format(epoch, batch_idx, len(train_loader), loss.item()))
    scheduler.step()
    train_bpd = metric_average(running / len(train_loader), 'train_nll') / math.log(2)
    test_bpd = test(epoch)
    if hvd.rank() == 0:
        print('epoch %d done in %.1fs, train bpd %.4f' % (epoch, time.time() - t0, train_bpd))
        os.makedirs(args.save_dir, exist_ok=True)
        torch.save({'epoch': epoch, 'state_dict': model.state_dict(), 'optimizer': optimizer.state_dict()},
                   os.path.join(args.save_dir, 'pixelcnn_%d.pt' % epoch))
        if epoch % args.sample_every == 0:
            save_image(model.sample(16, device), os.path.join(args.save_dir, 'sample_%d.png' % epoch), nrow=4)
