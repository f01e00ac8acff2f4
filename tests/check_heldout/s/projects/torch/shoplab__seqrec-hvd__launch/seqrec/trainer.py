import os

import torch
import torch.nn.functional as F
import horovod.torch as hvd

from .model import SASRec


class Trainer:
    def __init__(self, cfg, device):
        self.cfg = cfg
        self.device = device
        self._build()
        hvd.broadcast_parameters(self.model.state_dict(), root_rank=0)
        hvd.broadcast_optimizer_state(self.optimizer, root_rank=0)

    def _build(self):
        m = self.cfg["model"]
        self.model = SASRec(max(m["num_items"], 2), m["hidden"], m["blocks"], m["heads"], m["dropout"],
                            max_len=self.cfg["data"]["max_len"]).to(self.device)
        opt = torch.optim.Adam(self.model.parameters(), lr=self.cfg["optim"]["lr"] * hvd.size())
        self.optimizer = hvd.DistributedOptimizer(opt, named_parameters=self.model.named_parameters())

    def fit(self, data, train_idx, valid_idx):
        if data.num_items != self.cfg["model"]["num_items"]:
            # catalogue size is only known once the sessions are read
            self.cfg["model"]["num_items"] = data.num_items
            self._build()
        bs = self.cfg["data"]["batch_size"]
        for epoch in range(self.cfg["optim"]["epochs"]):
            self.model.train()
            for x, y in data.batches(train_idx, bs, hvd.rank(), hvd.size(), seed=self.cfg["seed"] + epoch):
                x, y = x.to(self.device), y.to(self.device)
                self.optimizer.zero_grad()
                logits = self.model(x)
                loss = F.cross_entropy(logits.reshape(-1, logits.shape[-1]), y.reshape(-1), ignore_index=0)
                loss.backward()
                self.optimizer.step()
            hr = self.evaluate(data, valid_idx)
            if hvd.rank() == 0:
                print(f"epoch {epoch}: HR@10 {hr:.4f}", flush=True)
                self.save(epoch)
        return hr

    @torch.no_grad()
    def evaluate(self, data, valid_idx, k=10):
        self.model.eval()
        hits = torch.zeros(())
        total = torch.zeros(())
        for x, y in data.batches(valid_idx, 256, hvd.rank(), hvd.size(), seed=0):
            scores = self.model(x.to(self.device))[:, -1]
            topk = scores.topk(k, dim=1).indices.cpu()
            hits += (topk == y[:, -1:]).any(1).sum()
            total += len(y)
        hits = hvd.allreduce(hits, op=hvd.Sum, name="hr_hits")
        total = hvd.allreduce(total, op=hvd.Sum, name="hr_total")
        return (hits / total.clamp(min=1)).item()

    def save(self, epoch):
        os.makedirs(self.cfg["ckpt_dir"], exist_ok=True)
        torch.save({"epoch": epoch, "model": self.model.state_dict(), "cfg": self.cfg},
                   os.path.join(self.cfg["ckpt_dir"], "sasrec.pt"))
