import argparse
import time

import numpy as np
import torch
import horovod.torch as hvd

from lwf.net import resnet18_cifar, frozen_copy
from lwf.distill import kd_loss, masked_ce
from lwf.loaders import task_loaders
from lwf import checkpoint


def metric_average(value, name):
    return hvd.allreduce(torch.tensor(value), name=name).item()


def evaluate(model, loader, n_seen, device):
    model.eval()
    correct, total = 0, 0
    with torch.no_grad():
        for x, y in loader:
            out = model(x.to(device))[:, :n_seen]
            correct += (out.argmax(1).cpu() == y).sum().item()
            total += y.numel()
    return correct, total


def main():
    parser = argparse.ArgumentParser(description="LwF class-incremental CIFAR-100")
    parser.add_argument("--data", default="./data/cifar100.npz")
    parser.add_argument("--increment", type=int, default=10)
    parser.add_argument("--epochs", type=int, default=70)
    parser.add_argument("--batch-size", type=int, default=32)
    parser.add_argument("--lr", type=float, default=0.1)
    parser.add_argument("--T", type=float, default=2.0)
    parser.add_argument("--alpha", type=float, default=1.0)
    parser.add_argument("--out-dir", default="./ckpt")
    parser.add_argument("--resume", action="store_true")
    args = parser.parse_args()

    hvd.init()
    torch.manual_seed(1)
    if torch.cuda.is_available():
        torch.cuda.set_device(hvd.rank())
    device = torch.device("cuda" if torch.cuda.is_available() else "cpu")

    blob = np.load(args.data)
    data = (blob["x_train"], blob["y_train"]), (blob["x_test"], blob["y_test"])
    n_classes = int(blob["y_train"].max()) + 1
    tasks = [list(range(s, min(s + args.increment, n_classes))) for s in range(0, n_classes, args.increment)]

    model = resnet18_cifar(n_classes).to(device)
    optimizer = torch.optim.SGD(model.parameters(), lr=args.lr * hvd.size(), momentum=0.9, weight_decay=5e-4)
    optimizer = hvd.DistributedOptimizer(optimizer, named_parameters=model.named_parameters())

    first = 0
    path = checkpoint.latest(args.out_dir) if args.resume else None
    if path and hvd.rank() == 0:
        state = torch.load(path, map_location="cpu")
        model.load_state_dict(state["model"])
        optimizer.load_state_dict(state["optimizer"])
    if path:
        first = int(path.rsplit("_t", 1)[1].split(".")[0]) + 1
    hvd.broadcast_parameters(model.state_dict(), root_rank=0)
    hvd.broadcast_optimizer_state(optimizer, root_rank=0)

    old_model = frozen_copy(model) if first > 0 else None
    for t in range(first, len(tasks)):
        n_seen = tasks[t][-1] + 1
        train_loader, _ = task_loaders(data, tasks[t], args.batch_size)
        for epoch in range(args.epochs):
            train_loader.sampler.set_epoch(epoch)
            model.train()
            tic = time.time()
            for x, y in train_loader:
                x, y = x.to(device), y.to(device)
                logits = model(x)
                loss = masked_ce(logits, y, n_seen)
                if old_model is not None:
                    with torch.no_grad():
                        old_logits = old_model(x)[:, :tasks[t][0]]
                    loss = loss + args.alpha * kd_loss(logits, old_logits, args.T)
                optimizer.zero_grad()
                loss.backward()
                optimizer.step()
            if hvd.rank() == 0:
                print(f"task {t} epoch {epoch}: loss {loss.item():.3f} {time.time() - tic:.1f}s")

        seen = [c for task in tasks[: t + 1] for c in task]
        _, test_loader = task_loaders(data, seen, args.batch_size)
        correct, total = evaluate(model, test_loader, n_seen, device)
        acc = metric_average(float(correct), "correct") / metric_average(float(total), "total")
        if hvd.rank() == 0:
            print(f"== task {t}: accuracy on {len(seen)} seen classes = {acc:.4f}")
        checkpoint.save(model, optimizer, t, args.out_dir)
        old_model = frozen_copy(model)


if __name__ == "__main__":
    main()
