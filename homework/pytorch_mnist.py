"""Sequential MNIST CNN in PyTorch: the homework's starting point, the same model as tensorflow2_mnist.py.

    python homework/pytorch_mnist.py --dataset fashion-mnist --epochs 16 --metrics seq.json

pytorch_mnist_hvd.py is this file converted to Horovod; `diff` the two to see the conversion.
"""
import os
import time

import torch
from torch import nn
from torch.utils.data import TensorDataset

import mnist_common
from hvdkit.common.files import replacing  # makes the checkpoint's directory too


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
    args = mnist_common.parser(__doc__).parse_args()
    torch.manual_seed(args.seed)
    device = "cuda" if torch.cuda.is_available() else "cpu"
    x_train, y_train, x_test, y_test = mnist_common.load(args)
    train_set = TensorDataset(torch.from_numpy(x_train).unsqueeze(1), torch.from_numpy(y_train))
    val_set = TensorDataset(torch.from_numpy(x_test).unsqueeze(1), torch.from_numpy(y_test))
    train = torch.utils.data.DataLoader(train_set, batch_size=args.batch_size, shuffle=True)
    val = torch.utils.data.DataLoader(val_set, batch_size=args.batch_size)

    model = Net().to(device)
    opt = torch.optim.Adam(model.parameters(), lr=args.lr)
    sched = None

    ckpt = os.path.join(args.checkpoint_dir, "checkpoint.pt") if args.checkpoint_dir else None
    state = torch.load(ckpt) if ckpt and os.path.exists(ckpt) else None
    if state:
        model.load_state_dict(state["model"])
        opt.load_state_dict(state["optimizer"])
    start = state["epoch"] + 1 if state else 0
    log = mnist_common.MetricsLog(args, "torch")
    log.resume(start)
    for epoch in range(start, args.epochs):
        t0 = time.perf_counter()
        pairs = run_epoch(model, train, "train", device, opt, sched)
        train_time = time.perf_counter() - t0
        pairs.update(run_epoch(model, val, "val", device))
        metrics = mnist_common.mean(pairs)
        log.add(epoch, **metrics, time=train_time, val_time=time.perf_counter() - t0 - train_time)
        if ckpt:
            with replacing(ckpt) as tmp:  # a crash mid-write must not destroy the last checkpoint
                torch.save({"epoch": epoch, "model": model.state_dict(), "optimizer": opt.state_dict()}, tmp)


if __name__ == "__main__":
    main()
