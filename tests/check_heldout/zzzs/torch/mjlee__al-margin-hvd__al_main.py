# margin sampling AL on MNIST w/ horovod
# horovodrun -np 2 python al_main.py --rounds 10 --query 500
import argparse
import os
import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F
import torch.optim as optim
from torch.utils.data import DataLoader, Subset
from torch.utils.data.distributed import DistributedSampler
from torchvision import datasets, transforms
import horovod.torch as hvd

parser = argparse.ArgumentParser(description='margin AL')
parser.add_argument('--data-dir', default='./data')
parser.add_argument('--save-dir', default='./ckpt')
parser.add_argument('--rounds', type=int, default=10)
parser.add_argument('--init', type=int, default=100)
parser.add_argument('--query', type=int, default=500)
parser.add_argument('--epochs', type=int, default=15)
parser.add_argument('--batch-size', type=int, default=64)
parser.add_argument('--lr', type=float, default=1e-3)
parser.add_argument('--fake-data', action='store_true', help='random tensors instead of MNIST (debug)')
args = parser.parse_args()

hvd.init()
torch.manual_seed(args.seed)
if torch.cuda.is_available():
    torch.cuda.set_device(hvd.local_rank())
device = 'cuda' if torch.cuda.is_available() else 'cpu'


class Net(nn.Module):
    def __init__(self):
        super(Net, self).__init__()
        self.conv1 = nn.Conv2d(1, 32, 3, 1)
        self.conv2 = nn.Conv2d(32, 64, 3, 1)
        self.fc1 = nn.Linear(9216, 128)
        self.fc2 = nn.Linear(128, 10)

    def forward(self, x):
        x = F.relu(self.conv1(x))
        x = F.max_pool2d(F.relu(self.conv2(x)), 2)
        x = torch.flatten(x, 1)
        x = F.relu(self.fc1(x))
        return self.fc2(x)


tf_ = transforms.Compose([transforms.ToTensor(), transforms.Normalize((0.1307,), (0.3081,))])
if args.fake_data:
    train_set = datasets.FakeData(2000, (1, 28, 28), 10, transform=transforms.ToTensor(),
                                  target_transform=lambda t: int(t))
    test_set = datasets.FakeData(400, (1, 28, 28), 10, transform=transforms.ToTensor(),
                                 target_transform=lambda t: int(t))
else:
    # only local rank 0 downloads, others wait
    if hvd.local_rank() != 0:
        hvd.barrier()
    train_set = datasets.MNIST(args.data_dir, train=True, download=True, transform=tf_)
    test_set = datasets.MNIST(args.data_dir, train=False, transform=tf_)
    if hvd.local_rank() == 0:
        hvd.barrier()

np.random.seed(0)
idx_all = np.random.permutation(len(train_set))
labeled_idx = idx_all[:args.init].tolist()
pool_idx = idx_all[args.init:].tolist()
os.makedirs(args.save_dir, exist_ok=True)

model = Net().to(device)
optimizer = optim.Adam(model.parameters(), lr=args.lr)
optimizer = hvd.DistributedOptimizer(optimizer, named_parameters=model.named_parameters())
hvd.broadcast_parameters(model.state_dict(), root_rank=0)
hvd.broadcast_optimizer_state(optimizer, root_rank=0)

test_sampler = DistributedSampler(test_set, num_replicas=hvd.size(), rank=hvd.rank(), shuffle=False)
test_loader = DataLoader(test_set, batch_size=1000, sampler=test_sampler)


def test():
    model.eval()
    correct = torch.zeros(1)
    n = torch.zeros(1)
    with torch.no_grad():
        for x, y in test_loader:
            x, y = x.to(device), y.to(device)
            correct += (model(x).argmax(1) == y).sum().item()
            n += len(y)
    correct = hvd.allreduce(correct, op=hvd.Sum, name='correct')
    n = hvd.allreduce(n, op=hvd.Sum, name='n')
    return (correct / n).item()


def margins(pool):
    # every rank scores the whole pool, weights are identical so the ranking is too
    model.eval()
    loader = DataLoader(Subset(train_set, pool), batch_size=1000, shuffle=False)
    out = []
    with torch.no_grad():
        for x, _ in loader:
            p = F.softmax(model(x.to(device)), 1)
            top = p.topk(2, 1).values
            out.append((top[:, 0] - top[:, 1]).cpu())
    return torch.cat(out)


log = []
for r in range(args.rounds):
    sub = Subset(train_set, labeled_idx)
    sampler = DistributedSampler(sub, num_replicas=hvd.size(), rank=hvd.rank(), shuffle=True)
    loader = DataLoader(sub, batch_size=args.batch_size, sampler=sampler)
    # warm start: keep training the same model every round
    for ep in range(args.epochs):
        sampler.set_epoch(ep)
        model.train()
        for x, y in loader:
            x, y = x.to(device), y.to(device)
            optimizer.zero_grad()
            loss = F.cross_entropy(model(x), y)
            loss.backward()
            optimizer.step()
    acc = test()
    log.append((r, len(labeled_idx), acc))
    if hvd.rank() == 0:
        print('round %d  n_labeled %d  acc %.4f' % (r, len(labeled_idx), acc))
        np.save(os.path.join(args.save_dir, 'labeled_r%d.npy' % r), np.array(labeled_idx))
    torch.save(model.state_dict(), os.path.join(args.save_dir, 'model_r%d.pt' % r))

    m = margins(pool_idx)
    q = torch.argsort(m)[:args.query].tolist()   # smallest margin first
    new = [pool_idx[i] for i in q]
    labeled_idx = labeled_idx + new
    qs = set(q)
    pool_idx = [p for i, p in enumerate(pool_idx) if i not in qs]

if hvd.rank() == 0:
    print('round,n_labeled,acc')
    for r, n, a in log:
        print('%d,%d,%.4f' % (r, n, a))
