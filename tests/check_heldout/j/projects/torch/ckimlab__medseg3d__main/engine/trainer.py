import os

import torch
import torch.nn.functional as F
import horovod.torch as hvd
from torch.utils.data import DataLoader
from torch.utils.data.distributed import DistributedSampler

from data.volumes import PatchVolumes
from nets import UNet3D

from .metrics import DiceTracker
from .runtime import start


def soft_dice_loss(logits, target, eps=1e-5):
    probs = logits.softmax(1)
    onehot = F.one_hot(target, logits.shape[1]).permute(0, 4, 1, 2, 3).float()
    inter = (probs * onehot).sum((2, 3, 4))
    denom = probs.sum((2, 3, 4)) + onehot.sum((2, 3, 4))
    return 1 - ((2 * inter + eps) / (denom + eps))[:, 1:].mean()


class Trainer:
    def __init__(self, cfg):
        self.cfg = cfg
        self.rt = start(no_cuda=cfg.no_cuda, seed=cfg.seed)
        if cfg.global_batch % self.rt.world_size:
            raise ValueError(f"--global-batch {cfg.global_batch} is not divisible by {self.rt.world_size} workers")
        # the global batch is fixed, so the hyper-parameters do not depend on the number of workers
        self.local_batch = cfg.global_batch // self.rt.world_size

        self.train_set = PatchVolumes(cfg.data, "train", augment=True)
        self.val_set = PatchVolumes(cfg.data, "val")
        self.sampler = DistributedSampler(self.train_set, num_replicas=self.rt.world_size, rank=self.rt.rank,
                                          shuffle=True, seed=cfg.seed, drop_last=True)
        self.val_sampler = DistributedSampler(self.val_set, num_replicas=self.rt.world_size, rank=self.rt.rank,
                                              shuffle=False)
        self.loader = DataLoader(self.train_set, batch_size=self.local_batch, sampler=self.sampler,
                                 num_workers=cfg.workers, drop_last=True, pin_memory=True)
        self.val_loader = DataLoader(self.val_set, batch_size=1, sampler=self.val_sampler, num_workers=cfg.workers)

        model = UNet3D(classes=cfg.classes).to(self.rt.device)
        if cfg.dp and self.rt.world_size == 1 and torch.cuda.device_count() > 1:
            model = torch.nn.DataParallel(model)  # one process driving all GPUs of a workstation
        self.model = model
        self.updater = torch.optim.Adam(self.model.parameters(), lr=cfg.lr)
        self.updater = hvd.DistributedOptimizer(self.updater, named_parameters=self.model.named_parameters())
        self.sched = torch.optim.lr_scheduler.LambdaLR(self.updater, lambda e: (1 - e / cfg.epochs) ** 0.9)

        self.start_epoch = 0
        if cfg.resume and self.rt.is_root:
            state = torch.load(cfg.resume, map_location="cpu")
            self.model.load_state_dict(state["model"])
            self.updater.load_state_dict(state["optimizer"])
            self.start_epoch = state["epoch"] + 1
        hvd.broadcast_parameters(self.model.state_dict(), root_rank=0)
        hvd.broadcast_optimizer_state(self.updater, root_rank=0)
        self.start_epoch = hvd.broadcast_object(self.start_epoch, root_rank=0, name="start_epoch")
        for _ in range(self.start_epoch):
            self.sched.step()

    def train_step(self, image, label):
        self.updater.zero_grad(set_to_none=True)
        logits = self.model(image)
        loss = F.cross_entropy(logits, label) + soft_dice_loss(logits, label)
        loss.backward()
        self.updater.step()
        return loss.item()

    def train_epoch(self, epoch):
        self.model.train()
        self.sampler.set_epoch(epoch)
        total = 0.0
        for i, (image, label) in enumerate(self.loader):
            total += self.train_step(image.to(self.rt.device), label.to(self.rt.device))
        mean = hvd.allreduce(torch.tensor(total / max(i + 1, 1)), name="train_loss").item()
        return mean

    @torch.no_grad()
    def validate(self):
        self.model.eval()
        tracker = DiceTracker(self.cfg.classes)
        for image, label in self.val_loader:
            tracker.update(self.model(image.to(self.rt.device)), label.to(self.rt.device))
        tracker.synchronize()
        return tracker.dice()

    def save(self, epoch, tag="last"):
        if not self.rt.is_root:
            return
        os.makedirs(self.cfg.out, exist_ok=True)
        torch.save({"epoch": epoch, "model": self.model.state_dict(), "optimizer": self.updater.state_dict()},
                   os.path.join(self.cfg.out, f"{tag}.pt"))

    def fit(self):
        best = -1.0
        for epoch in range(self.start_epoch, self.cfg.epochs):
            loss = self.train_epoch(epoch)
            self.sched.step()
            if self.rt.is_root:
                print(f"epoch {epoch:3d} loss {loss:.4f} lr {self.sched.get_last_lr()[0]:.2e}", flush=True)
            if (epoch + 1) % self.cfg.val_every == 0 or epoch + 1 == self.cfg.epochs:
                per_class, mean_dice = self.validate()
                if self.rt.is_root:
                    print(f"  val dice {mean_dice:.4f} per class {[round(d, 4) for d in per_class]}")
                if mean_dice > best:
                    best = mean_dice
                    self.save(epoch, tag="best")
            self.save(epoch)
