# MAML on Omniglot (Finn et al. 2017), multi-GPU meta-batches with Horovod.
# Each rank samples its own tasks; meta-gradients are averaged across ranks.
import argparse
import logging
import os

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.func import functional_call
import horovod.torch as hvd

logging.basicConfig(level=logging.INFO, format="%(asctime)s %(message)s")
log = logging.getLogger("maml")

parser = argparse.ArgumentParser(description="MAML")
parser.add_argument("--data", default="data/omniglot28.npz")
parser.add_argument("--n-way", type=int, default=5)
parser.add_argument("--k-shot", type=int, default=1)
parser.add_argument("--k-query", type=int, default=15)
parser.add_argument("--meta-batch", type=int, default=4, help="tasks per rank per meta-step")
parser.add_argument("--inner-lr", type=float, default=0.4)
parser.add_argument("--inner-steps", type=int, default=1)
parser.add_argument("--meta-lr", type=float, default=1e-3)
parser.add_argument("--iterations", type=int, default=20000)
parser.add_argument("--first-order", action="store_true")
parser.add_argument("--save-dir", default="maml_ckpt")
args = parser.parse_args()

hvd.init()
use_cuda = torch.cuda.is_available()
if use_cuda:
    torch.cuda.set_device(hvd.local_rank())
device = torch.device("cuda" if use_cuda else "cpu")
torch.manual_seed(1234)
rng = np.random.RandomState(1234 + hvd.rank())

blob = np.load(args.data)
X, Y = blob["x_train"].astype(np.float32) / 255.0, blob["y_train"]
by_class = {c: np.flatnonzero(Y == c) for c in np.unique(Y)}


def sample_task():
    classes = rng.choice(list(by_class), args.n_way, replace=False)
    xs, ys, xq, yq = [], [], [], []
    for j, c in enumerate(classes):
        idx = rng.choice(by_class[c], args.k_shot + args.k_query, replace=False)
        xs.append(X[idx[:args.k_shot]]); ys += [j] * args.k_shot
        xq.append(X[idx[args.k_shot:]]); yq += [j] * args.k_query
    t = lambda a: torch.from_numpy(np.concatenate(a)).to(device)
    return t(xs), torch.tensor(ys, device=device), t(xq), torch.tensor(yq, device=device)


class Learner(nn.Module):
    def __init__(self, n_way, ch=1):
        super().__init__()
        layers = []
        for i in range(4):
            layers += [nn.Conv2d(ch if i == 0 else 64, 64, 3, padding=1), nn.BatchNorm2d(64, track_running_stats=False),
                       nn.ReLU(), nn.MaxPool2d(2, ceil_mode=True)]
        self.features = nn.Sequential(*layers)
        self.fc = nn.Linear(64, n_way)

    def forward(self, x):
        return self.fc(self.features(x).mean((2, 3)))


def adapt(model, xs, ys):
    params = dict(model.named_parameters())
    for _ in range(args.inner_steps):
        loss = F.cross_entropy(functional_call(model, params, (xs,)), ys)
        grads = torch.autograd.grad(loss, list(params.values()), create_graph=not args.first_order)
        params = {n: p - inner_lr * g for (n, p), g in zip(params.items(), grads)}
    return params


model = Learner(args.n_way, ch=X.shape[1]).to(device)
# more workers -> larger effective meta batch; scale the adaptation step accordingly
inner_lr = args.inner_lr * hvd.size()
meta_opt = torch.optim.Adam(model.parameters(), lr=args.meta_lr)
meta_opt = hvd.DistributedOptimizer(meta_opt, named_parameters=model.named_parameters())
hvd.broadcast_parameters(model.state_dict(), root_rank=0)
hvd.broadcast_optimizer_state(meta_opt, root_rank=0)

for it in range(1, args.iterations + 1):
    meta_opt.zero_grad()
    q_acc = 0.0
    for _ in range(args.meta_batch):
        xs, ys, xq, yq = sample_task()
        fast = adapt(model, xs, ys)
        logits = functional_call(model, fast, (xq,))
        (F.cross_entropy(logits, yq) / args.meta_batch).backward()
        q_acc += (logits.argmax(1) == yq).float().mean().item() / args.meta_batch
    meta_opt.step()

    if it % 100 == 0:
        acc = hvd.allreduce(torch.tensor(q_acc), name="q_acc").item()
        if hvd.rank() == 0:
            log.info("it %d  query acc %.3f", it, acc)
    if it % 1000 == 0 and hvd.rank() == 0:
        os.makedirs(args.save_dir, exist_ok=True)
        torch.save({"it": it, "model": model.state_dict(), "opt": meta_opt.state_dict()},
                   os.path.join(args.save_dir, f"maml_{it}.pt"))
