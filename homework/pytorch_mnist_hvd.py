"""MNIST CNN in PyTorch on Horovod: pytorch_mnist.py converted with hvdkit's eight steps.

    mpirun -n 4 python homework/pytorch_mnist_hvd.py --dataset fashion-mnist --epochs 16 --metrics hvd4.json

Every line that differs from pytorch_mnist.py carries a `# Horovod:` comment naming its step (of the eight
in docs/eight-steps.md); tests/test_homework.py checks that nothing else changed. The metrics log prints and
writes on rank 0 only: it asks hvdkit which rank this is (mnist_common.MetricsLog).
"""
import time

import torch
from torch import nn
from torch.utils.data import TensorDataset

import hvdkit.torch as hk  # Horovod: the eight steps, one call each
import mnist_common


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.features = nn.Sequential(
            nn.Conv2d(1, 32, 3), nn.ReLU(), nn.Conv2d(32, 64, 3), nn.ReLU(), nn.MaxPool2d(2), nn.Dropout(0.25))
        self.classifier = nn.Sequential(
            nn.Flatten(), nn.Linear(64 * 12 * 12, 128), nn.ReLU(), nn.Dropout(0.5), nn.Linear(128, 10))

    def forward(self, x):
        return self.classifier(self.features(x))


def run_epoch(model, batches, prefix, device, optimizer=None, scheduler=None):
    """One pass over `batches` (training when an optimizer is given); {prefix_loss: (sum, count), ...}."""
    model.train(optimizer is not None)
    loss_sum = correct = count = 0.0
    with torch.set_grad_enabled(optimizer is not None):
        for x, y in batches:
            x, y = x.to(device), y.to(device)
            logits = model(x)
            loss = nn.functional.cross_entropy(logits, y)
            if optimizer is not None:
                optimizer.zero_grad()
                loss.backward()
                optimizer.step()
                if scheduler is not None:
                    scheduler.step()
            loss_sum += loss.item() * len(y)
            correct += (logits.argmax(1) == y).sum().item()
            count += len(y)
    return {prefix + "_loss": (loss_sum, count), prefix + "_accuracy": (correct, count)}


def main():
    args = mnist_common.parser(__doc__, horovod=True).parse_args()  # Horovod: adds --warmup-epochs
    device = hk.init(seed=args.seed).device  # Horovod: steps 1-2, start Horovod; this rank's GPU (or the CPU)
    x_train, y_train, x_test, y_test = mnist_common.load(args)
    train_set = TensorDataset(torch.from_numpy(x_train).unsqueeze(1), torch.from_numpy(y_train))
    val_set = TensorDataset(torch.from_numpy(x_test).unsqueeze(1), torch.from_numpy(y_test))
    train = hk.shard(train_set, args.batch_size, seed=args.seed)  # Horovod: step 3, this rank's part, equal steps
    val = hk.shard_eval(val_set, args.batch_size)  # Horovod: step 3, each validation sample on one rank, once

    model = Net().to(device)
    opt = torch.optim.Adam(model.parameters(), lr=hk.scale_lr(args.lr))  # Horovod: step 4, LR x ranks
    opt = hk.distributed_optimizer(opt, model)  # Horovod: step 5, gradients averaged over ranks in opt.step()
    sched = hk.warmup(opt, epochs=args.warmup_epochs, steps_per_epoch=len(train))  # Horovod: step 4, warmup
    hk.broadcast_state(model, opt)  # Horovod: step 6, all ranks start from rank 0's weights and optimizer

    ckpt = hk.Checkpointer(args.checkpoint_dir) if args.checkpoint_dir else None  # Horovod: step 7, rank 0 writes
    start = ckpt.restore(model=model, optimizer=opt, scheduler=sched) if ckpt else 0  # Horovod: step 7, all resume
    log = mnist_common.MetricsLog(args, "torch")
    log.resume(start)
    for epoch in range(start, args.epochs):
        t0 = time.perf_counter()
        train.set_epoch(epoch)  # Horovod: step 3, a new shuffle every epoch, the same on every rank
        pairs = run_epoch(model, train, "train", device, opt, sched)
        train_time = time.perf_counter() - t0
        pairs.update(run_epoch(model, val, "val", device))
        metrics = hk.average_metrics(pairs)  # Horovod: step 8, sums and counts added over ranks, then divided
        log.add(epoch, **metrics, time=train_time, val_time=time.perf_counter() - t0 - train_time)
        if ckpt:
            ckpt.save(epoch, model=model, optimizer=opt, scheduler=sched)  # Horovod: step 7, atomic, keeps 3


if __name__ == "__main__":
    main()
