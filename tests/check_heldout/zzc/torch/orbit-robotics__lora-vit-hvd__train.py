import argparse
import os
import time

import torch
import torch.nn.functional as F
import yaml
import horovod.torch as hvd
from torch.utils.data import DataLoader
from torch.utils.data.distributed import DistributedSampler
from torchvision import datasets, transforms

from lora_ft.dist import setup_horovod, is_main, all_sum
from lora_ft.lora import inject_lora, lora_state_dict, mark_only_lora_and_head_trainable
from lora_ft.optim import build_optimizer
from lora_ft.vit import ViT


def get_loaders(cfg):
    norm = transforms.Normalize((0.4914, 0.4822, 0.4465), (0.247, 0.243, 0.261))
    train_tf = transforms.Compose([transforms.RandomCrop(32, padding=4),
                                   transforms.RandomHorizontalFlip(), transforms.ToTensor(), norm])
    test_tf = transforms.Compose([transforms.ToTensor(), norm])
    train_set = datasets.CIFAR10(cfg["data_root"], train=True, transform=train_tf, download=False)
    test_set = datasets.CIFAR10(cfg["data_root"], train=False, transform=test_tf, download=False)
    train_sampler = DistributedSampler(train_set, num_replicas=hvd.size(), rank=hvd.rank())
    test_sampler = DistributedSampler(test_set, num_replicas=hvd.size(), rank=hvd.rank(),
                                      shuffle=False)
    return (DataLoader(train_set, cfg["batch_size"], sampler=train_sampler, num_workers=4),
            DataLoader(test_set, 256, sampler=test_sampler, num_workers=4), train_sampler)


@torch.no_grad()
def test(model, loader, device):
    model.eval()
    correct = torch.zeros(2, device=device)
    for x, y in loader:
        x, y = x.to(device), y.to(device)
        correct[0] += (model(x).argmax(-1) == y).sum()
        correct[1] += y.numel()
    correct = all_sum(correct, "test_acc")
    return (correct[0] / correct[1]).item()


def run(config_path):
    with open(config_path) as f:
        cfg = yaml.safe_load(f)
    device = setup_horovod()
    train_loader, test_loader, train_sampler = get_loaders(cfg)

    model = ViT(num_classes=100)
    model.load_state_dict(torch.load(cfg["pretrained"], map_location="cpu"))
    model.reset_head(cfg["num_classes"])
    inject_lora(model, rank=cfg["lora_rank"], alpha=cfg["lora_alpha"])
    mark_only_lora_and_head_trainable(model)
    model.to(device)

    optimizer = build_optimizer(model, cfg)
    optimizer = hvd.DistributedOptimizer(optimizer, named_parameters=model.named_parameters())
    hvd.broadcast_parameters(model.state_dict(), root_rank=0)
    hvd.broadcast_optimizer_state(optimizer, root_rank=0)
    steps = cfg["epochs"] * len(train_loader)
    sched = torch.optim.lr_scheduler.OneCycleLR(
        optimizer, max_lr=[g["lr"] for g in optimizer.param_groups], total_steps=steps)

    best = 0.0
    for epoch in range(cfg["epochs"]):
        model.train()
        train_sampler.set_epoch(epoch)
        tic = time.time()
        for x, y in train_loader:
            x, y = x.to(device), y.to(device)
            loss = F.cross_entropy(model(x), y)
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            sched.step()
        acc = test(model, test_loader, device)
        if is_main():
            print(f"epoch {epoch:02d} loss {loss.item():.3f} test acc {acc:.4f} "
                  f"({time.time() - tic:.1f}s)", flush=True)
            if acc > best:
                best = acc
                os.makedirs(cfg["output"], exist_ok=True)
                torch.save(lora_state_dict(model), os.path.join(cfg["output"], "lora_best.pt"))


if __name__ == "__main__":
    ap = argparse.ArgumentParser()
    ap.add_argument("--config", default="configs/lora_vit.yaml")
    run(ap.parse_args().config)
