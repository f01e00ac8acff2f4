import torch


class Architect:
    """First-order DARTS: alphas follow the validation-loss gradient."""

    def __init__(self, model, criterion, arch_lr=3e-4, arch_wd=1e-3):
        self.model = model
        self.criterion = criterion
        self.optimizer = torch.optim.Adam(model.arch_parameters(), lr=arch_lr,
                                          betas=(0.5, 0.999), weight_decay=arch_wd)

    def step(self, x_val, y_val):
        loss = self.criterion(self.model(x_val), y_val)
        # autograd.grad only: must not fire the weight optimizer's backward hooks
        grads = torch.autograd.grad(loss, self.model.arch_parameters())
        for p, g in zip(self.model.arch_parameters(), grads):
            p.grad = g
        self.optimizer.step()
        self.optimizer.zero_grad(set_to_none=True)
        return loss.item()

    def state_dict(self):
        return self.optimizer.state_dict()

    def load_state_dict(self, sd):
        self.optimizer.load_state_dict(sd)
