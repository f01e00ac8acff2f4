import os

import torch
import torch.nn.functional as F
import horovod.torch as hvd

from .dist import is_master, mean_over_workers, log


class Trainer(object):
    def __init__(self, model, graph, local_idx, args, device):
        self.model = model.to(device)
        self.g = {k: v.to(device) for k, v in graph.items()}
        self.local_idx = local_idx.to(device)
        self.args = args
        self.device = device
        base = torch.optim.Adam(self.model.parameters(), lr=args.lr * hvd.size(),
                                weight_decay=args.weight_decay)
        compression = hvd.Compression.fp16 if args.fp16_allreduce else hvd.Compression.none
        self.optimizer = hvd.DistributedOptimizer(base, named_parameters=self.model.named_parameters(),
                                                  compression=compression)
        hvd.broadcast_parameters(self.model.state_dict(), root_rank=0)
        hvd.broadcast_optimizer_state(self.optimizer, root_rank=0)

    def train_epoch(self, epoch):
        # mini-batches of labelled nodes; the forward pass still runs on the whole (small) graph
        self.model.train()
        gen = torch.Generator().manual_seed(self.args.seed + epoch)
        order = self.local_idx[torch.randperm(len(self.local_idx), generator=gen).to(self.device)]
        bs = self.args.batch_nodes
        total, steps = 0.0, 0
        for s in range(0, len(order), bs):
            batch = order[s:s + bs]
            self.optimizer.zero_grad()
            out = self.model(self.g["x"], self.g["adj"])
            loss = F.cross_entropy(out[batch], self.g["y"][batch])
            loss.backward()
            self.optimizer.step()
            total += loss.item()
            steps += 1
        return mean_over_workers(total / max(steps, 1), "train_loss")

    @torch.no_grad()
    def evaluate(self, mask_name):
        # every worker holds the whole graph and the same weights -> same numbers on every rank
        self.model.eval()
        out = self.model(self.g["x"], self.g["adj"])
        mask = self.g[mask_name]
        pred = out[mask].argmax(-1)
        return (pred == self.g["y"][mask]).float().mean().item()

    def save(self, epoch):
        if not is_master():
            return
        os.makedirs(self.args.ckpt_dir, exist_ok=True)
        path = os.path.join(self.args.ckpt_dir, "gcn_ep%04d.pt" % epoch)
        torch.save({"epoch": epoch, "model": self.model.state_dict(),
                    "optimizer": self.optimizer.state_dict()}, path)
        log("saved", path)
