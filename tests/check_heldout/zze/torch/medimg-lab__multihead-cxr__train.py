import argparse
import dataclasses
import os

import torch
import torch.nn.functional as F
import horovod.torch as hvd
from torch.utils.data import DataLoader
from torch.utils.data.distributed import DistributedSampler

from cxr.data import DistributedWeightedSampler, NpyCXR, mixed_sources
from cxr.metrics import global_auroc
from cxr.model import MultiHeadCXR
from cxr.optim import build_optimizers, warmup_cosine


@dataclasses.dataclass
class Config:
    sources: tuple = ("data/nih_256", "data/chexpert_256")
    mix: tuple = (0.5, 0.5)
    val_root: str = "data/val_256"
    samples_per_epoch: int = 60000
    batch_size: int = 32
    epochs: int = 20
    backbone_lr: float = 0.01
    head_lr: float = 1e-3
    weight_decay: float = 1e-4
    w_view: float = 0.2
    w_age: float = 0.1
    out_dir: str = "outputs/cxr"
    seed: int = 0


def parse() -> Config:
    ap = argparse.ArgumentParser()
    for f in dataclasses.fields(Config):
        if f.type in (int, float, str):
            ap.add_argument("--" + f.name.replace("_", "-"), type=f.type, default=f.default)
    return Config(**vars(ap.parse_args()))


def run(cfg: Config):
    hvd.init()
    torch.cuda.set_device(hvd.rank())
    device = torch.device("cuda")

    train_set, weights = mixed_sources(cfg.sources, cfg.mix)
    sampler = DistributedWeightedSampler(weights, cfg.samples_per_epoch, seed=cfg.seed)
    train_loader = DataLoader(train_set, batch_size=cfg.batch_size, sampler=sampler, num_workers=6, drop_last=True)
    val_set = NpyCXR(cfg.val_root)
    val_sampler = DistributedSampler(val_set, num_replicas=hvd.size(), rank=hvd.rank(), shuffle=False)
    val_loader = DataLoader(val_set, batch_size=64, sampler=val_sampler, num_workers=4)

    model = MultiHeadCXR(pretrained_backbone=True).to(device)
    trunk_opt, head_opt = build_optimizers(model, cfg)
    steps = cfg.epochs * len(train_loader)
    schedulers = [warmup_cosine(o, 500, steps) for o in (trunk_opt, head_opt)]

    hvd.broadcast_parameters(model.state_dict(), root_rank=0)
    hvd.broadcast_optimizer_state(trunk_opt, root_rank=0)
    hvd.broadcast_optimizer_state(head_opt, root_rank=0)

    best = 0.0
    for epoch in range(cfg.epochs):
        model.train()
        sampler.set_epoch(epoch)
        for img, findings, view, age in train_loader:
            img, findings, view, age = img.to(device), findings.to(device), view.to(device), age.to(device)
            out = model(img)
            loss = (F.binary_cross_entropy_with_logits(out["findings"], findings)
                    + cfg.w_view * F.cross_entropy(out["view"], view)
                    + cfg.w_age * F.smooth_l1_loss(out["age"].squeeze(1), age))
            trunk_opt.zero_grad()
            head_opt.zero_grad()
            loss.backward()
            trunk_opt.step()
            head_opt.step()
            for s in schedulers:
                s.step()

        model.eval()
        probs, targets = [], []
        with torch.no_grad():
            for img, findings, _, _ in val_loader:
                probs.append(torch.sigmoid(model(img.to(device))["findings"]).cpu())
                targets.append(findings)
        mean_auc, per_class = global_auroc(torch.cat(probs), torch.cat(targets))
        if hvd.rank() == 0:
            print(f"epoch {epoch} mean AUROC {mean_auc:.4f} " + " ".join(f"{a:.3f}" for a in per_class))
            os.makedirs(cfg.out_dir, exist_ok=True)
            state = {"model": model.state_dict(), "epoch": epoch, "auc": mean_auc}
            torch.save(state, os.path.join(cfg.out_dir, "last.pt"))
            if mean_auc > best:
                best = mean_auc
                torch.save(state, os.path.join(cfg.out_dir, "best.pt"))


if __name__ == "__main__":
    run(parse())
