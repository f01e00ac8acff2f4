# Split-MNIST with online EWC, multi-head, distributed with Horovod.
# usage: horovodrun -np 2 python main.py --data-root ./data --epochs 4 --lam 5000
import argparse
import os
import time

import torch
import torch.nn.functional as F
import horovod.torch as hvd

from ewc import MultiHeadMLP, EWC
from ewc.datasets import split_mnist_task, SPLIT_MNIST
from ewc.dist_utils import world_info, wrap_optimizer, sync_state, is_master, save_master

parser = argparse.ArgumentParser()
parser.add_argument("--data-root", default="./data")
parser.add_argument("--epochs", type=int, default=4)
parser.add_argument("--batch-size", type=int, default=128)
parser.add_argument("--lr", type=float, default=1e-3)
parser.add_argument("--lam", type=float, default=5000.0)
parser.add_argument("--gamma", type=float, default=1.0)
parser.add_argument("--seed", type=int, default=0)
parser.add_argument("--fp16-allreduce", action="store_true")
parser.add_argument("--ckpt-dir", default="checkpoints")
parser.add_argument("--no-cuda", action="store_true")


def train_task(model, ewc, optimizer, loader, task_id, epoch, device):
    model.train()
    loader.sampler.set_epoch(epoch)
    t0 = time.time()
    for step, (x, y) in enumerate(loader):
        x, y = x.to(device), y.to(device)
        optimizer.zero_grad()
        ce = F.cross_entropy(model(x, task_id), y)
        loss = ce + ewc.penalty().to(device)
        loss.backward()
        optimizer.step()
        if step % 50 == 0 and is_master():
            print(f"[task {task_id} ep {epoch}] step {step} ce {ce.item():.4f} "
                  f"loss {loss.item():.4f} ({time.time() - t0:.1f}s)")


@torch.no_grad()
def test_task(model, loader, task_id, device):
    model.eval()
    correct = total = 0
    for x, y in loader:
        pred = model(x.to(device), task_id).argmax(1).cpu()
        correct += (pred == y).sum().item()
        total += y.size(0)
    return correct / max(total, 1)


def main():
    args = parser.parse_args()
    hvd.init()
    rank, world, local_rank = world_info()
    use_cuda = torch.cuda.is_available() and not args.no_cuda
    if use_cuda:
        torch.cuda.set_device(local_rank)
    device = torch.device("cuda" if use_cuda else "cpu")
    # different dropout masks per worker
    torch.manual_seed(args.seed + rank)

    model = MultiHeadMLP(n_tasks=len(SPLIT_MNIST)).to(device)
    ewc = EWC(model, lam=args.lam, gamma=args.gamma)
    optimizer = torch.optim.Adam(model.parameters(), lr=args.lr * world)
    optimizer = wrap_optimizer(optimizer, model, args.fp16_allreduce)
    sync_state(model, optimizer)
    os.makedirs(args.ckpt_dir, exist_ok=True)

    test_loaders = []
    for task_id in range(len(SPLIT_MNIST)):
        train_loader = split_mnist_task(args.data_root, task_id, True, args.batch_size, rank, world)
        test_loaders.append(split_mnist_task(args.data_root, task_id, False, 1000, rank, world))
        for epoch in range(args.epochs):
            train_task(model, ewc, optimizer, train_loader, task_id, epoch, device)

        ewc.consolidate(train_loader, task_id, device)

        accs = [test_task(model, test_loaders[k], k, device) for k in range(task_id + 1)]
        if is_master():
            print(f"== after task {task_id}: " + ", ".join(f"{a:.4f}" for a in accs)
                  + f" | mean {sum(accs) / len(accs):.4f}")
        save_master({"model": model.state_dict(), "task": task_id,
                     "fisher": ewc.fisher, "anchor": ewc.anchor},
                    os.path.join(args.ckpt_dir, f"ewc_task{task_id}.pt"))


if __name__ == "__main__":
    main()
