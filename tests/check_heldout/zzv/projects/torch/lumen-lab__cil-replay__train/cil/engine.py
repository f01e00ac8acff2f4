import torch
import torch.nn.functional as F
import horovod.torch as hvd


class Trainer:
    def __init__(self, model, cfg, device, lr):
        self.model = model
        self.cfg = cfg
        self.device = device
        self.amp = cfg.amp and device.type == "cuda"
        base = torch.optim.SGD(model.parameters(), lr=lr, momentum=cfg.momentum,
                               weight_decay=cfg.weight_decay)
        # one wrapped optimizer for the whole run (its hooks live on the parameters)
        self.optimizer = hvd.DistributedOptimizer(base, named_parameters=model.named_parameters())
        self.scaler = torch.cuda.amp.GradScaler(enabled=self.amp)

    def sync(self):
        """Make every worker start from worker 0's weights (fresh or resumed)."""
        hvd.broadcast_parameters(self.model.state_dict(), root_rank=0)
        hvd.broadcast_optimizer_state(self.optimizer, root_rank=0)

    def begin_task(self, task_id, n_new):
        self.model.expand(n_new)

    def train_epoch(self, loader):
        self.model.train()
        total, n = 0.0, 0
        for x, y in loader:
            x, y = x.to(self.device), y.to(self.device)
            self.optimizer.zero_grad()
            with torch.autocast(self.device.type, enabled=self.amp):
                loss = F.cross_entropy(self.model(x), y)
            self.scaler.scale(loss).backward()
            self.optimizer.synchronize()
            self.scaler.unscale_(self.optimizer)
            with self.optimizer.skip_synchronize():
                self.scaler.step(self.optimizer)
            self.scaler.update()
            total += loss.item() * x.size(0)
            n += x.size(0)
        return total / max(n, 1)

    @torch.no_grad()
    def evaluate(self, loader):
        self.model.eval()
        stats = torch.zeros(2)
        for x, y in loader:
            pred = self.model(x.to(self.device)).argmax(1).cpu()
            stats += torch.tensor([(pred == y).sum().item(), y.numel()], dtype=torch.float)
        stats = hvd.allreduce(stats, op=hvd.Sum, name="eval_stats")
        return (stats[0] / stats[1].clamp(min=1)).item()

    def save(self, path, tasks_done, buffer):
        torch.save({"model": self.model.state_dict(), "optimizer": self.optimizer.state_dict(),
                    "tasks_done": tasks_done, "buffer": buffer.state_dict()}, path)

    def load(self, path, buffer, split):
        ckpt = torch.load(path, map_location="cpu")
        self.model.load_state_dict(ckpt["model"])
        self.optimizer.load_state_dict(ckpt["optimizer"])
        buffer.load_state_dict(ckpt["buffer"], split)
        return ckpt["tasks_done"]
