import horovod.torch as hvd
import torch


class Runtime:
    """Owns the distributed context, device and optimizer for a run."""

    def __init__(self, seed=0):
        hvd.init()
        self.rank, self.size = hvd.rank(), hvd.size()
        if torch.cuda.is_available():
            torch.cuda.set_device(hvd.rank())
            self.device = torch.device("cuda")
        else:
            self.device = torch.device("cpu")
        torch.manual_seed(seed)

    def build_optimizer(self, model, lr, weight_decay=1e-4):
        opt = torch.optim.AdamW(model.parameters(), lr=lr * self.size, weight_decay=weight_decay)
        opt = hvd.DistributedOptimizer(opt, named_parameters=model.named_parameters())
        hvd.broadcast_parameters(model.state_dict(), root_rank=0)
        hvd.broadcast_optimizer_state(opt, root_rank=0)
        return opt

    def sum(self, values, name):
        return hvd.allreduce(torch.as_tensor(values, dtype=torch.float64), op=hvd.Sum, name=name)
