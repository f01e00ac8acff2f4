import torch
import horovod.torch as hvd


class ArchStepper:
    """Alpha update with a latency penalty; alpha gradients are averaged by hand."""

    def __init__(self, model, latency_table, lr=6e-3, lat_weight=0.1, target_ms=2.0):
        self.model, self.lat = model, latency_table
        self.lat_weight, self.target_ms = lat_weight, target_ms
        self.optimizer = torch.optim.Adam(model.arch_parameters(), lr=lr, betas=(0.0, 0.999))

    def step(self, x, y, criterion):
        alphas = self.model.arch_parameters()
        ce = criterion(self.model(x), y)
        lat = self.lat.expected(self.model)
        loss = ce + self.lat_weight * torch.relu(lat - self.target_ms)
        grads = torch.autograd.grad(loss, alphas)
        for i, (a, g) in enumerate(zip(alphas, grads)):
            a.grad = hvd.allreduce(g, name=f"alpha_grad.{i}")
        self.optimizer.step()
        self.optimizer.zero_grad(set_to_none=True)
        return ce.item(), lat.item()
