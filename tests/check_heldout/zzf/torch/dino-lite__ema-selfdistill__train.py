"""Self-distillation without labels (DINO-style) on CIFAR-10 with Horovod.

A student ViT-tiny learns to match an EMA teacher on two augmented views. The teacher
receives no gradients; its weights are an exponential moving average of the student's.
"""
import argparse
import copy
import math
import os

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F
import horovod.torch as hvd
from torch.utils.data import DataLoader, Subset
from torchvision import datasets, transforms
from torchvision.models.vision_transformer import VisionTransformer


class TwoCrops:
    def __init__(self):
        self.t = transforms.Compose([
            transforms.RandomResizedCrop(32, scale=(0.3, 1.0)), transforms.RandomHorizontalFlip(),
            transforms.ColorJitter(0.4, 0.4, 0.2, 0.1), transforms.ToTensor()])

    def __call__(self, img):
        return self.t(img), self.t(img)


class DinoHead(nn.Module):
    def __init__(self, dim, out_dim=4096):
        super().__init__()
        self.mlp = nn.Sequential(nn.Linear(dim, 512), nn.GELU(), nn.Linear(512, 256))
        self.last = nn.utils.parametrizations.weight_norm(nn.Linear(256, out_dim, bias=False))

    def forward(self, x):
        return self.last(F.normalize(self.mlp(x), dim=-1))


def build_net():
    vit = VisionTransformer(image_size=32, patch_size=4, num_layers=6, num_heads=3, hidden_dim=192, mlp_dim=768)
    vit.heads = nn.Identity()
    return nn.Sequential(vit, DinoHead(192))


def rank_partition(n, seed):
    """Same permutation on every rank, then an equal-sized strided slice per rank."""
    perm = np.random.RandomState(seed).permutation(n)
    per_rank = n // hvd.size()
    return perm[hvd.rank()::hvd.size()][:per_rank].tolist()


def dino_loss(s_out, t_out, center, t_student=0.1, t_teacher=0.04):
    t_probs = [F.softmax((t - center) / t_teacher, dim=-1).detach() for t in t_out]
    s_logp = [F.log_softmax(s / t_student, dim=-1) for s in s_out]
    loss = sum(-(t_probs[i] * s_logp[j]).sum(-1).mean() for i in range(2) for j in range(2) if i != j)
    return loss / 2


def cosine(step, total, peak, final=1e-6, warmup=0):
    if step < warmup:
        return peak * step / max(1, warmup)
    return final + 0.5 * (peak - final) * (1 + math.cos(math.pi * (step - warmup) / max(1, total - warmup)))


def train_worker(cfg):
    hvd.init()
    torch.manual_seed(cfg.seed)
    if torch.cuda.is_available():
        torch.cuda.set_device(hvd.local_rank())
    dev = torch.device("cuda" if torch.cuda.is_available() else "cpu")

    full = datasets.CIFAR10(cfg.data, train=True, transform=TwoCrops())
    shard = Subset(full, rank_partition(len(full), cfg.seed))
    loader = DataLoader(shard, batch_size=cfg.batch_size_per_gpu, shuffle=True, drop_last=True, num_workers=4)

    student = build_net().to(dev)
    global_batch = cfg.batch_size_per_gpu * hvd.size()
    peak_lr = cfg.blr * global_batch / 256
    opt = torch.optim.AdamW(student.parameters(), lr=peak_lr, weight_decay=0.04)

    state = None
    if hvd.rank() == 0 and cfg.resume and os.path.isfile(cfg.resume):
        state = torch.load(cfg.resume, map_location="cpu")
    state = hvd.broadcast_object(state, root_rank=0, name="resume_state")
    if state is not None:
        student.load_state_dict(state["student"])
        opt.load_state_dict(state["opt"])
    else:
        hvd.broadcast_parameters(student.state_dict(), root_rank=0)
    teacher = copy.deepcopy(student)
    if state is not None:
        teacher.load_state_dict(state["teacher"])
    teacher.requires_grad_(False)
    center = state["center"].to(dev) if state is not None else torch.zeros(1, 4096, device=dev)
    step = state["step"] if state is not None else 0

    opt = hvd.DistributedOptimizer(opt, named_parameters=student.named_parameters(), op=hvd.Average)
    total = cfg.epochs * len(loader)
    while step < total:
        for (v1, v2), _ in loader:
            v1, v2 = v1.to(dev, non_blocking=True), v2.to(dev, non_blocking=True)
            for g in opt.param_groups:
                g["lr"] = cosine(step, total, peak_lr, warmup=cfg.warmup_epochs * len(loader))
            with torch.no_grad():
                t_out = [teacher(v1), teacher(v2)]
            s_out = [student(v1), student(v2)]
            loss = dino_loss(s_out, t_out, center)
            opt.zero_grad()
            loss.backward()
            opt.step()

            with torch.no_grad():
                m = 1 - (1 - cfg.momentum) * (math.cos(math.pi * step / total) + 1) / 2
                for pt, ps in zip(teacher.parameters(), student.parameters()):
                    pt.mul_(m).add_(ps.detach(), alpha=1 - m)
                batch_center = torch.cat(t_out).mean(0, keepdim=True)
                batch_center = hvd.allreduce(batch_center, name="center", op=hvd.Average)
                center = center * 0.9 + batch_center * 0.1

            step += 1
            if step % cfg.log_every == 0:
                avg = hvd.allreduce(loss.detach(), name="loss", op=hvd.Average)
                if hvd.rank() == 0:
                    print(f"step {step}/{total} loss {avg.item():.4f} lr {opt.param_groups[0]['lr']:.2e}", flush=True)
            if hvd.rank() == 0 and step % cfg.ckpt_every == 0:
                os.makedirs(cfg.out, exist_ok=True)
                torch.save({"student": student.state_dict(), "teacher": teacher.state_dict(),
                            "opt": opt.state_dict(), "center": center.cpu(), "step": step},
                           os.path.join(cfg.out, "checkpoint.pth"))
            if step >= total:
                break


def parse():
    p = argparse.ArgumentParser()
    p.add_argument("--data", default="~/datasets/cifar10")
    p.add_argument("--epochs", type=int, default=100)
    p.add_argument("--batch-size-per-gpu", type=int, default=128)
    p.add_argument("--blr", type=float, default=5e-4, help="lr per 256 images")
    p.add_argument("--warmup-epochs", type=int, default=10)
    p.add_argument("--momentum", type=float, default=0.996, help="teacher EMA momentum")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--log-every", type=int, default=50)
    p.add_argument("--ckpt-every", type=int, default=1000)
    p.add_argument("--resume", default="")
    p.add_argument("--out", default="out/dino_cifar")
    return p.parse_args()


if __name__ == "__main__":
    train_worker(parse())
