import torch
import torch.nn.functional as F


class PGD:
    """L-inf PGD with a random start (Madry et al., 2018)."""

    def __init__(self, eps=8 / 255, alpha=2 / 255, steps=10, random_start=True):
        self.eps, self.alpha, self.steps = eps, alpha, steps
        self.random_start = random_start

    def __call__(self, model, x, y):
        was_training = model.training
        model.eval()
        delta = torch.zeros_like(x)
        if self.random_start:
            delta.uniform_(-self.eps, self.eps)
        delta = (x + delta).clamp(0, 1) - x
        for _ in range(self.steps):
            delta.requires_grad_(True)
            loss = F.cross_entropy(model(x + delta), y)
            grad, = torch.autograd.grad(loss, delta)
            delta = delta.detach() + self.alpha * grad.sign()
            delta = delta.clamp(-self.eps, self.eps)
            delta = (x + delta).clamp(0, 1) - x
        model.train(was_training)
        return (x + delta).detach()
