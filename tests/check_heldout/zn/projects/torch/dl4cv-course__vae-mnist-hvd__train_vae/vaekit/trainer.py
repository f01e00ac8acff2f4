import os

import torch
import torchvision.utils as vutils
import horovod.torch as hvd

from .losses import elbo_terms


class Trainer:
    def __init__(self, model, base_lr, world_size, warmup_epochs, steps_per_epoch, beta=1.0,
                 out_dir="checkpoints"):
        self.is_root = hvd.rank() == 0
        if torch.cuda.is_available():
            torch.cuda.set_device(hvd.local_rank())
            self.device = torch.device("cuda", hvd.local_rank())
        else:
            self.device = torch.device("cpu")
        self.model = model.to(self.device)
        self.beta = beta
        self.out_dir = out_dir
        # linear scaling with a short warm-up from the single-GPU rate
        self.peak_lr = base_lr * world_size
        opt = torch.optim.Adam(self.model.parameters(), lr=self.peak_lr)
        self.optimizer = hvd.DistributedOptimizer(opt, named_parameters=self.model.named_parameters())
        warm = max(1, warmup_epochs * steps_per_epoch)
        start = 1.0 / world_size
        self.scheduler = torch.optim.lr_scheduler.LambdaLR(
            self.optimizer, lambda s: start + (1.0 - start) * min(1.0, (s + 1) / warm))

    def current_lr(self):
        return self.optimizer.param_groups[0]["lr"]

    def restore(self, path):
        """Rank 0 reads the checkpoint (or keeps its fresh init); every rank gets rank 0's state."""
        payload = None
        if self.is_root:
            payload = {"model": self.model.state_dict(), "optim": self.optimizer.state_dict(),
                       "sched": self.scheduler.state_dict(), "epoch": 0}
            if path and os.path.exists(path):
                payload = torch.load(path, map_location="cpu")
        payload = hvd.broadcast_object(payload, root_rank=0, name="trainer_state")
        self.model.load_state_dict(payload["model"])
        self.optimizer.load_state_dict(payload["optim"])
        self.scheduler.load_state_dict(payload["sched"])
        return payload["epoch"]

    def train_epoch(self, batches):
        self.model.train()
        total, count = 0.0, 0
        for x in batches:
            x = x.to(self.device)
            logits, mu, logvar = self.model(x)
            recon, kl = elbo_terms(logits, x, mu, logvar)
            loss = (recon + self.beta * kl).mean()
            self.optimizer.zero_grad()
            loss.backward()
            self.optimizer.step()
            self.scheduler.step()
            total += loss.item() * x.size(0)
            count += x.size(0)
        sums = hvd.allreduce(torch.tensor([total, float(count)]), op=hvd.Sum, name="train_sums")
        return (sums[0] / sums[1]).item()

    @torch.no_grad()
    def evaluate(self, batches):
        self.model.eval()
        acc = torch.zeros(3)
        for x in batches:
            x = x.to(self.device)
            logits, mu, logvar = self.model(x)
            recon, kl = elbo_terms(logits, x, mu, logvar)
            acc += torch.tensor([recon.sum().item(), kl.sum().item(), float(x.size(0))])
        acc = hvd.allreduce(acc, op=hvd.Sum, name="eval_sums")
        return {"recon": (acc[0] / acc[2]).item(), "kl": (acc[1] / acc[2]).item()}

    def save(self, epoch):
        if not self.is_root:
            return
        os.makedirs(self.out_dir, exist_ok=True)
        torch.save({"model": self.model.state_dict(), "optim": self.optimizer.state_dict(),
                    "sched": self.scheduler.state_dict(), "epoch": epoch + 1},
                   os.path.join(self.out_dir, "last.pt"))

    def write_samples(self, name):
        if self.is_root:
            imgs = self.model.sample(64, self.device)
            vutils.save_image(imgs.cpu(), os.path.join(self.out_dir, name), nrow=8)
