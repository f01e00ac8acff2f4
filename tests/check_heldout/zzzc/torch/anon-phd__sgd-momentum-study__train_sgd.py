# momentum study: heavy-ball vs nesterov vs no momentum, hand-written update rule
# run:  mpirun -np 4 python train_sgd.py --momentum 0.9 --nesterov 1
import argparse
import os
import time

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.data import DataLoader, TensorDataset
import horovod.torch as hvd

parser = argparse.ArgumentParser()
parser.add_argument('--lr', type=float, default=0.01)
parser.add_argument('--momentum', type=float, default=0.9)
parser.add_argument('--nesterov', type=int, default=0)
parser.add_argument('--bs', type=int, default=128)
parser.add_argument('--epochs', type=int, default=20)
parser.add_argument('--data', default='./data/features.npz')
parser.add_argument('--save', default='./ckpt')
args = parser.parse_args()


class MomentumSGD(torch.optim.Optimizer):
    def __init__(self, params, lr=0.01, momentum=0.0, nesterov=False):
        super().__init__(params, dict(lr=lr, momentum=momentum, nesterov=nesterov))

    @torch.no_grad()
    def step(self, closure=None):
        for group in self.param_groups:
            mu = group['momentum']
            for p in group['params']:
                if p.grad is None:
                    continue
                state = self.state[p]
                if 'velocity' not in state:
                    state['velocity'] = torch.zeros_like(p)
                v = state['velocity']
                v.mul_(mu).add_(p.grad)
                d = p.grad.add(v, alpha=mu) if group['nesterov'] else v
                p.add_(d, alpha=-group['lr'])


hvd.init()
torch.manual_seed(1)
if torch.cuda.is_available():
    torch.cuda.set_device(hvd.local_rank())
device = 'cuda' if torch.cuda.is_available() else 'cpu'

# features precomputed by extract.py (x: float32 [N, 512], y: int64 [N])
d = np.load(args.data)
train_ds = TensorDataset(torch.from_numpy(d['x_train']), torch.from_numpy(d['y_train']))
test_ds = TensorDataset(torch.from_numpy(d['x_test']), torch.from_numpy(d['y_test']))
train_loader = DataLoader(train_ds, batch_size=args.bs, shuffle=True, num_workers=2)
test_loader = DataLoader(test_ds, batch_size=512)

model = nn.Sequential(nn.Linear(512, 256), nn.ReLU(), nn.Dropout(0.2), nn.Linear(256, 100)).to(device)
optimizer = MomentumSGD(model.parameters(), lr=args.lr * hvd.size(),
                        momentum=args.momentum, nesterov=bool(args.nesterov))

hvd.broadcast_parameters(model.state_dict(), root_rank=0)
hvd.broadcast_optimizer_state(optimizer, root=0)
optimizer = hvd.DistributedOptimizer(optimizer, named_parameters=model.named_parameters())

tag = 'mu%.2f_nest%d_np%d' % (args.momentum, args.nesterov, hvd.size())
history = []
for epoch in range(args.epochs):
    model.train()
    t = time.time()
    for x, y in train_loader:
        x, y = x.to(device), y.to(device)
        optimizer.zero_grad()
        loss = F.cross_entropy(model(x), y)
        loss.backward()
        optimizer.step()

    # every worker scores the whole test set; rank 0 reports
    model.eval()
    correct = 0
    with torch.no_grad():
        for x, y in test_loader:
            correct += (model(x.to(device)).argmax(1).cpu() == y).sum().item()
    acc = correct / len(test_ds)
    history.append(acc)
    if hvd.rank() == 0:
        print('%s epoch %d  acc %.4f  %.1fs' % (tag, epoch, acc, time.time() - t))
        os.makedirs(args.save, exist_ok=True)
        torch.save(model.state_dict(), os.path.join(args.save, tag + '.pt'))

if hvd.rank() == 0:
    np.save(os.path.join(args.save, tag + '_acc.npy'), np.array(history))
