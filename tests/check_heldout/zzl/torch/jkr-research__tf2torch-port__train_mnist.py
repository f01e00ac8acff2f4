# Port of our TF2 custom-training-loop MNIST baseline to PyTorch + Horovod.
# Names follow the TF version (per-replica batch, Mean metrics, CheckpointManager)
# so that the two can be diffed side by side.
import argparse
import glob
import os

import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.data import DataLoader
from torch.utils.tensorboard import SummaryWriter
from torchvision import datasets, transforms
import horovod.torch as hvd


class Mean:
    """keras.metrics.Mean look-alike."""

    def __init__(self):
        self.reset_states()

    def reset_states(self):
        self.total, self.count = 0.0, 0

    def update_state(self, value, n=1):
        self.total += float(value) * n
        self.count += n

    def result(self):
        return self.total / max(self.count, 1)


class CheckpointManager:
    """Keeps the last `max_to_keep` checkpoints, like tf.train.CheckpointManager."""

    def __init__(self, directory, max_to_keep=3):
        self.directory, self.max_to_keep = directory, max_to_keep
        os.makedirs(directory, exist_ok=True)

    def save(self, state, step):
        torch.save(state, os.path.join(self.directory, f"ckpt-{step:06d}.pt"))
        for old in sorted(glob.glob(os.path.join(self.directory, "ckpt-*.pt")))[:-self.max_to_keep]:
            os.remove(old)

    @property
    def latest_checkpoint(self):
        ckpts = sorted(glob.glob(os.path.join(self.directory, "ckpt-*.pt")))
        return ckpts[-1] if ckpts else None


class ConvNet(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv1 = nn.Conv2d(1, 32, 3)
        self.conv2 = nn.Conv2d(32, 64, 3)
        self.fc1 = nn.Linear(64 * 12 * 12, 128)
        self.fc2 = nn.Linear(128, 10)

    def forward(self, x):
        x = F.max_pool2d(F.relu(self.conv2(F.relu(self.conv1(x)))), 2)
        return self.fc2(F.relu(self.fc1(torch.flatten(x, 1))))


def parse_args():
    parser = argparse.ArgumentParser()
    parser.add_argument("--data_dir", default="./mnist")
    parser.add_argument("--model_dir", default="./runs/mnist_torch")
    parser.add_argument("--per_replica_batch_size", type=int, default=128)
    parser.add_argument("--learning_rate", type=float, default=0.05)
    parser.add_argument("--epochs", type=int, default=12)
    parser.add_argument("--seed", type=int, default=42)
    return parser.parse_args()


def main():
    args = parse_args()
    hvd.init()
    torch.manual_seed(args.seed)
    use_cuda = torch.cuda.is_available()
    if use_cuda:
        torch.cuda.set_device(hvd.local_rank())
    device = torch.device("cuda" if use_cuda else "cpu")

    tfm = transforms.Compose([transforms.ToTensor(), transforms.Normalize((0.1307,), (0.3081,))])
    train_ds = datasets.MNIST(args.data_dir, train=True, transform=tfm)
    test_ds = datasets.MNIST(args.data_dir, train=False, transform=tfm)
    train_loader = DataLoader(train_ds, batch_size=args.per_replica_batch_size,
                              shuffle=True, num_workers=2, drop_last=True)
    test_loader = DataLoader(test_ds, batch_size=1000)

    model = ConvNet().to(device)
    optimizer = torch.optim.SGD(model.parameters(), lr=args.learning_rate, momentum=0.9)
    optimizer = hvd.DistributedOptimizer(optimizer, named_parameters=model.named_parameters())
    scheduler = torch.optim.lr_scheduler.OneCycleLR(
        optimizer, max_lr=args.learning_rate, total_steps=args.epochs * len(train_loader),
        pct_start=args.warmup_steps / (args.epochs * len(train_loader)))

    manager = CheckpointManager(os.path.join(args.model_dir, "ckpt"))
    start_epoch = 0
    if hvd.rank() == 0 and manager.latest_checkpoint:
        state = torch.load(manager.latest_checkpoint, map_location="cpu")
        model.load_state_dict(state["model"])
        optimizer.load_state_dict(state["optimizer"])
        start_epoch = state["epoch"] + 1
    hvd.broadcast_parameters(model.state_dict(), root_rank=0)
    hvd.broadcast_optimizer_state(optimizer, root_rank=0)
    start_epoch = hvd.broadcast_object(start_epoch, root_rank=0)

    writer = SummaryWriter(args.model_dir) if hvd.rank() == 0 else None
    train_loss, test_acc = Mean(), Mean()
    for epoch in range(start_epoch, args.epochs):
        train_loss.reset_states()
        test_acc.reset_states()
        model.train()
        for x, y in train_loader:
            x, y = x.to(device), y.to(device)
            optimizer.zero_grad()
            loss = F.cross_entropy(model(x), y)
            loss.backward()
            optimizer.step()
            scheduler.step()
            train_loss.update_state(loss.item(), len(y))

        # every replica scores the whole test set, so rank 0's number is the number
        model.eval()
        with torch.no_grad():
            for x, y in test_loader:
                pred = model(x.to(device)).argmax(1).cpu()
                test_acc.update_state((pred == y).float().mean(), len(y))

        if hvd.rank() == 0:
            writer.add_scalar("train/loss", train_loss.result(), epoch)
            writer.add_scalar("test/accuracy", test_acc.result(), epoch)
            print(f"epoch {epoch}: loss={train_loss.result():.4f} "
                  f"test_acc={test_acc.result():.4f}")
            manager.save({"model": model.state_dict(), "optimizer": optimizer.state_dict(),
                          "epoch": epoch}, step=epoch)


if __name__ == "__main__":
    main()
