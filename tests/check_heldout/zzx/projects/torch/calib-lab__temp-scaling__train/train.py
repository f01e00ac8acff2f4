import os

import torch
import torch.nn.functional as F
import torchvision
import torchvision.transforms as T
from torch.utils.data import DataLoader, Subset
from torch.utils.data.distributed import DistributedSampler
import horovod.torch as hvd

from tscal.config import TrainConfig
from tscal.engine import gather_logits, train_one_epoch
from tscal.optim import make_optimizer, make_scheduler
from tscal.temperature import TemperatureScaler, ece
from tscal.utils import dump_json, save_on_root, seed_everything


def build_data(cfg):
    norm = T.Normalize((0.507, 0.487, 0.441), (0.267, 0.256, 0.276))
    train_tf = T.Compose([T.RandomCrop(32, padding=4), T.RandomHorizontalFlip(), T.ToTensor(), norm])
    eval_tf = T.Compose([T.ToTensor(), norm])
    full_train = torchvision.datasets.CIFAR100(cfg.data_dir, train=True, transform=train_tf)
    full_val = torchvision.datasets.CIFAR100(cfg.data_dir, train=True, transform=eval_tf)
    test = torchvision.datasets.CIFAR100(cfg.data_dir, train=False, transform=eval_tf)
    perm = torch.randperm(len(full_train), generator=torch.Generator().manual_seed(1234)).tolist()
    train = Subset(full_train, perm[cfg.val_size:])
    val = Subset(full_val, perm[:cfg.val_size])
    samplers = [DistributedSampler(d, num_replicas=hvd.size(), rank=hvd.rank(), shuffle=s)
                for d, s in ((train, True), (val, False), (test, False))]
    loaders = [DataLoader(d, batch_size=cfg.batch_size, sampler=s, num_workers=cfg.workers,
                          pin_memory=True, drop_last=(d is train))
               for d, s in zip((train, val, test), samplers)]
    return loaders, samplers[0]


def main():
    cfg = TrainConfig.from_cli()
    hvd.init()
    seed_everything(cfg.seed + hvd.rank())
    device = torch.device("cpu")
    if torch.cuda.is_available():
        torch.cuda.set_device(hvd.local_rank())
        device = torch.device("cuda")

    (train_loader, val_loader, test_loader), train_sampler = build_data(cfg)
    model = getattr(torchvision.models, cfg.arch)(num_classes=100).to(device)
    optimizer = make_optimizer(model, cfg)
    optimizer = hvd.DistributedOptimizer(optimizer, named_parameters=model.named_parameters())
    scheduler = make_scheduler(optimizer, cfg)

    for epoch in range(cfg.epochs):
        train_sampler.set_epoch(epoch)
        train_one_epoch(model, train_loader, optimizer, device)
        scheduler.step()
        if (epoch + 1) % 10 == 0:
            logits, labels = gather_logits(model, test_loader, device)
            acc = logits.argmax(-1).eq(labels).float().mean().item()
            if hvd.rank() == 0:
                print(f"epoch {epoch + 1}: test acc {acc:.4f}  ece {ece(logits, labels):.4f}")
            save_on_root({"model": model.state_dict(), "epoch": epoch},
                         os.path.join(cfg.output, "model.pt"))

    # post-hoc temperature scaling on the held-out split (same gathered logits on every worker)
    val_logits, val_labels = gather_logits(model, val_loader, device)
    scaler = TemperatureScaler().fit(val_logits, val_labels)
    test_logits, test_labels = gather_logits(model, test_loader, device)
    report = {
        "temperature": scaler.temperature,
        "test_nll_before": F.cross_entropy(test_logits, test_labels).item(),
        "test_nll_after": F.cross_entropy(scaler(test_logits), test_labels).item(),
        "test_ece_before": ece(test_logits, test_labels),
        "test_ece_after": ece(scaler(test_logits).detach(), test_labels),
    }
    if hvd.rank() == 0:
        print(report)
    save_on_root({"model": model.state_dict(), "temperature": scaler.temperature},
                 os.path.join(cfg.output, "model_calibrated.pt"))
    dump_json(report, os.path.join(cfg.output, "calibration.json"))


if __name__ == "__main__":
    main()
