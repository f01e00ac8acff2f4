import torch
import torch.nn.functional as F
import horovod.torch as hvd


class Trainer:
    def __init__(self, model, optimizer, device, log_every=100):
        self.model, self.optimizer, self.device = model, optimizer, device
        self.log_every = log_every

    def train_epoch(self, loader, epoch):
        self.model.train()
        for step, (x, y) in enumerate(loader):
            x, y = x.to(self.device), y.to(self.device)
            self.optimizer.zero_grad()
            loss = F.nll_loss(self.model(x), y)
            loss.backward()
            self.optimizer.step()
            if step % self.log_every == 0 and hvd.rank() == 0:
                print(f"epoch {epoch} step {step}/{len(loader)} loss {loss.item():.4f}", flush=True)

    @torch.no_grad()
    def evaluate(self, loader):
        self.model.eval()
        loss_sum = torch.zeros(1)
        correct = torch.zeros(1)
        count = torch.zeros(1)
        for x, y in loader:
            x, y = x.to(self.device), y.to(self.device)
            out = self.model(x)
            loss_sum += F.nll_loss(out, y, reduction="sum").item()
            correct += out.argmax(1).eq(y).sum().item()
            count += y.numel()
        loss_sum, correct, count = (hvd.allreduce(t, op=hvd.Sum, name=n) for t, n in
                                    ((loss_sum, "loss"), (correct, "correct"), (count, "count")))
        return (loss_sum / count).item(), (correct / count).item()
