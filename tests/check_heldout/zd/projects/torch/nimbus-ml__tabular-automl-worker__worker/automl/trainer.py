import json
import os

import torch
import torch.nn as nn
import torch.nn.functional as F
import horovod.torch as hvd

from automl import hvd_utils


def make_mlp(n_in, n_out, s):
    layers, width = [], n_in
    for _ in range(s.depth):
        layers += [nn.Linear(width, s.width), nn.ReLU(), nn.Dropout(s.dropout)]
        width = s.width
    return nn.Sequential(*layers, nn.Linear(width, n_out))


class Trainer:
    def __init__(self, settings, n_in, n_out, device):
        self.s, self.device = settings, device
        self.model = make_mlp(n_in, n_out, settings.model).to(device)
        self.optimizer = torch.optim.SGD(self.model.parameters(), lr=settings.train.lr, momentum=0.9)
        self.ckpt = os.path.join(settings.artifact_dir, settings.name, "checkpoint.pt")
        self.start_epoch = 0
        if hvd.rank() == 0 and os.path.exists(self.ckpt):
            state = torch.load(self.ckpt, map_location="cpu")
            self.model.load_state_dict(state["model"])
            self.optimizer.load_state_dict(state["optimizer"])
            self.start_epoch = state["epoch"] + 1
        self.start_epoch = hvd.broadcast_object(self.start_epoch, root_rank=0)
        hvd_utils.sync(self.model, self.optimizer)
        self.optimizer = hvd_utils.distributed(self.optimizer, self.model)

    def fit_epoch(self, x, y, epoch):
        self.model.train()
        order = torch.randperm(len(x), generator=torch.Generator().manual_seed(epoch))
        bs = self.s.train.batch_size
        for i in range(0, len(order) - bs + 1, bs):
            idx = order[i:i + bs]
            self.optimizer.zero_grad()
            F.cross_entropy(self.model(x[idx].to(self.device)), y[idx].to(self.device)).backward()
            self.optimizer.step()

    @torch.no_grad()
    def score(self, x, y):
        """Full validation set, called on rank 0 only."""
        self.model.eval()
        logits = self.model(x.to(self.device))
        return {"val_loss": F.cross_entropy(logits, y.to(self.device)).item(),
                "val_acc": (logits.argmax(1).cpu() == y).float().mean().item()}

    def save(self, epoch, metrics):
        os.makedirs(os.path.dirname(self.ckpt), exist_ok=True)
        torch.save({"epoch": epoch, "model": self.model.state_dict(),
                    "optimizer": self.optimizer.state_dict()}, self.ckpt)
        with open(os.path.join(os.path.dirname(self.ckpt), "metrics.jsonl"), "a") as f:
            f.write(json.dumps({"epoch": epoch, **metrics}) + "\n")
