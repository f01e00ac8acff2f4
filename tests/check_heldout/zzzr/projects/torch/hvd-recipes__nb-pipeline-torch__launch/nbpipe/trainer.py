import os
import torch
import torch.nn.functional as F
import horovod.torch as hvd

from .dist import mean_over_ranks


class Trainer:
    def __init__(self, model, optimizer):
        self.model = model
        self.optimizer = hvd.DistributedOptimizer(optimizer, named_parameters=model.named_parameters())
        hvd.broadcast_parameters(self.model.state_dict(), root_rank=0)
        hvd.broadcast_optimizer_state(self.optimizer, root_rank=0)

    def maybe_load_pretrained(self, path):
        # only rank 0 touches the artifacts dir (shared NFS was slow with 8 readers)
        if path and hvd.rank() == 0 and os.path.exists(path):
            self.model.load_state_dict(torch.load(path, map_location="cpu"))
            print("loaded", path)

    def fit(self, loader, epochs):
        for ep in range(epochs):
            self.model.train()
            losses = []
            for x, y in loader:
                self.optimizer.zero_grad()
                loss = F.cross_entropy(self.model(x), y)
                loss.backward()
                self.optimizer.step()
                losses.append(loss.item())
            avg = mean_over_ranks(sum(losses) / max(len(losses), 1), "train_loss")
            if hvd.rank() == 0:
                print(f"epoch {ep} loss {avg:.4f}")

    @torch.no_grad()
    def accuracy(self, loader):
        self.model.eval()
        c = n = 0
        for x, y in loader:
            c += (self.model(x).argmax(1) == y).sum().item()
            n += len(y)
        t = hvd.allreduce(torch.tensor([c, n], dtype=torch.float64), op=hvd.Sum, name="acc")
        return (t[0] / t[1]).item()

    def save(self, path):
        if hvd.rank() == 0:
            os.makedirs(os.path.dirname(path) or ".", exist_ok=True)
            torch.save(self.model.state_dict(), path)
