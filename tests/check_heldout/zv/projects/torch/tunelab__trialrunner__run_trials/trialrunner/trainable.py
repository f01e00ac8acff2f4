import os

import torch
import torch.nn.functional as F
import horovod.torch as hvd
from torch.utils.data import DataLoader
from torch.utils.data.distributed import DistributedSampler
from torchvision import datasets, transforms

from .models import ConvNet
from .reporter import Reporter


def _avg(value, name):
    return hvd.allreduce(torch.tensor(value), name=name).item()


def train_fn(config):
    hvd.init()
    torch.manual_seed(config.get("seed", 42))
    if torch.cuda.is_available():
        torch.cuda.set_device(hvd.local_rank())
    device = torch.device("cuda" if torch.cuda.is_available() else "cpu")

    tfm = transforms.Compose([transforms.ToTensor(), transforms.Normalize((0.1307,), (0.3081,))])
    train_set = datasets.MNIST(config["data_dir"], train=True, download=False, transform=tfm)
    val_set = datasets.MNIST(config["data_dir"], train=False, download=False, transform=tfm)
    train_sampler = DistributedSampler(train_set, num_replicas=hvd.size(), rank=hvd.rank())
    val_sampler = DistributedSampler(val_set, num_replicas=hvd.size(), rank=hvd.rank(), shuffle=False)
    train_loader = DataLoader(train_set, batch_size=config["batch_size"], sampler=train_sampler, num_workers=2)
    val_loader = DataLoader(val_set, batch_size=1000, sampler=val_sampler)

    model = ConvNet(width=config["width"], dropout=config["dropout"]).to(device)
    optimizer = torch.optim.Adam(model.parameters(), lr=config["lr"])
    optimizer = hvd.DistributedOptimizer(optimizer, named_parameters=model.named_parameters())
    hvd.broadcast_parameters(model.state_dict(), root_rank=0)
    hvd.broadcast_optimizer_state(optimizer, root_rank=0)

    reporter = Reporter(config["trial_dir"], metric="val_loss", mode="min", patience=config.get("patience", 3))
    for epoch in range(config["epochs"]):
        model.train()
        train_sampler.set_epoch(epoch)
        for data, target in train_loader:
            data, target = data.to(device), target.to(device)
            optimizer.zero_grad()
            F.cross_entropy(model(data), target).backward()
            optimizer.step()

        model.eval()
        loss_sum, correct, n = 0.0, 0.0, 0.0
        with torch.no_grad():
            for data, target in val_loader:
                data, target = data.to(device), target.to(device)
                out = model(data)
                loss_sum += F.cross_entropy(out, target, reduction="sum").item()
                correct += (out.argmax(1) == target).sum().item()
                n += target.size(0)
        val_loss = _avg(loss_sum / n, "val_loss")
        val_acc = _avg(correct / n, "val_acc")
        reporter(epoch=epoch, val_loss=val_loss, val_acc=val_acc)
        reporter.checkpoint(model, optimizer, epoch)
        if reporter.should_stop:
            break
    return {"best_val_loss": reporter.best, "epochs_run": epoch + 1, "config": config}
