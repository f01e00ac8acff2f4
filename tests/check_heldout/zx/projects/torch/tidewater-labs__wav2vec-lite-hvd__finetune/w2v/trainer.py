import os
from dataclasses import dataclass
from typing import Optional

import torch
import torch.nn.functional as F
from torch.utils.data import DataLoader
import horovod.torch as hvd

from w2v.data import IntentManifest, worker_subset
from w2v.dist import global_sum
from w2v.model import IntentClassifier


@dataclass
class TrainerArgs:
    manifest: str
    out: str
    pretrained: Optional[str] = None
    epochs: int = 20
    batch_size: int = 8
    accum: int = 1
    lr: float = 5e-5
    warmup_steps: int = 1000
    fp16: bool = False


class Trainer:
    def __init__(self, args, env):
        self.args, self.env = args, env
        self.train_set = IntentManifest(args.manifest, "train")
        self.dev_loader = DataLoader(IntentManifest(args.manifest, "dev"), batch_size=32)
        self.model = IntentClassifier().to(env.device)
        if args.pretrained and env.is_main:
            state = torch.load(args.pretrained, map_location="cpu")
            self.model.features.load_state_dict(state["feature_encoder"])
        hvd.broadcast_parameters(self.model.state_dict(), root_rank=0)

        opt = torch.optim.AdamW(self.model.parameters(), lr=args.lr * env.world_size)
        self.optimizer = hvd.DistributedOptimizer(
            opt, named_parameters=self.model.named_parameters(),
            backward_passes_per_step=args.accum,
            compression=hvd.Compression.fp16 if args.fp16 else hvd.Compression.none)
        hvd.broadcast_optimizer_state(self.optimizer, root_rank=0)
        self.sched = torch.optim.lr_scheduler.LambdaLR(
            self.optimizer, lambda s: min(1.0, (s + 1) / args.warmup_steps))

    def fit(self):
        for epoch in range(self.args.epochs):
            part = worker_subset(self.train_set, self.env.rank, self.env.world_size, 1000 + epoch)
            loader = DataLoader(part, batch_size=self.args.batch_size, shuffle=False,
                                num_workers=2, drop_last=True)
            self.model.train()
            usable = len(loader) - len(loader) % self.args.accum
            for i, (wav, y) in enumerate(loader):
                if i >= usable:
                    break
                loss = F.cross_entropy(self.model(wav.to(self.env.device)), y.to(self.env.device))
                (loss / self.args.accum).backward()
                if (i + 1) % self.args.accum == 0:
                    self.optimizer.step()
                    self.optimizer.zero_grad()
                    self.sched.step()
            acc = self.evaluate()
            if self.env.is_main:
                print(f"epoch {epoch} last loss {loss.item():.4f} dev acc {acc:.4f}")
                self.save(epoch)

    @torch.no_grad()
    def evaluate(self):
        self.model.eval()
        correct = total = 0
        for i, (wav, y) in enumerate(self.dev_loader):
            if i % self.env.world_size != self.env.rank:
                continue
            pred = self.model(wav.to(self.env.device)).argmax(-1).cpu()
            correct += (pred == y).sum().item()
            total += y.numel()
        correct, total = global_sum(correct, total)
        return correct / max(total, 1)

    def save(self, epoch):
        os.makedirs(self.args.out, exist_ok=True)
        torch.save({"epoch": epoch, "model": self.model.state_dict(),
                    "optimizer": self.optimizer.state_dict()},
                   os.path.join(self.args.out, f"intent_e{epoch:02d}.pt"))
