import os

import torch
import torch.nn.functional as F
import horovod.torch as hvd


class Trainer:
    def __init__(self, model, optimizers, train_loader, test_loader, sampler, n_train,
                 device, ckpt_dir, n_samples=1):
        self.model, self.optimizers = model, optimizers
        self.train_loader, self.test_loader, self.sampler = train_loader, test_loader, sampler
        self.n_train = n_train          # full data-set size: KL weight is 1/N per example
        self.device, self.ckpt_dir, self.n_samples = device, ckpt_dir, n_samples

    def train_epoch(self, epoch):
        self.model.train()
        self.sampler.set_epoch(epoch)
        for x, y in self.train_loader:
            x, y = x.to(self.device), y.to(self.device)
            for opt in self.optimizers:
                opt.zero_grad()
            nll = F.cross_entropy(self.model(x), y)
            loss = nll + self.model.kl() / self.n_train
            loss.backward()
            for opt in self.optimizers:
                opt.step()
        return loss.item()

    @torch.no_grad()
    def evaluate(self, mc=10):
        self.model.eval()
        sums = torch.zeros(3, dtype=torch.float64)   # nll, correct, count
        for x, y in self.test_loader:
            x, y = x.to(self.device), y.to(self.device)
            probs = torch.stack([self.model(x).softmax(-1) for _ in range(mc)]).mean(0)
            sums[0] += -probs.gather(1, y[:, None]).clamp_min(1e-12).log().sum().item()
            sums[1] += probs.argmax(-1).eq(y).sum().item()
            sums[2] += y.numel()
        sums = hvd.allreduce(sums, op=hvd.Sum, name="eval_sums")
        return {"nll": (sums[0] / sums[2]).item(), "acc": (sums[1] / sums[2]).item()}

    def save_checkpoint(self, epoch):
        os.makedirs(self.ckpt_dir, exist_ok=True)
        torch.save({"epoch": epoch, "model": self.model.state_dict(),
                    "optimizers": [o.state_dict() for o in self.optimizers]},
                   os.path.join(self.ckpt_dir, f"bbb_epoch{epoch:03d}.pt"))
