import torch
import torch.nn.functional as F
import horovod.torch as hvd


def train_one_epoch(model, loader, optimizer, pruner, device, log_every=50):
    model.train()
    for i, (x, y) in enumerate(loader):
        x, y = x.to(device), y.to(device)
        optimizer.zero_grad()
        loss = F.cross_entropy(model(x), y)
        loss.backward()
        optimizer.step()
        pruner.apply()
        if i % log_every == 0 and hvd.rank() == 0:
            print(f"  step {i:4d} loss {loss.item():.4f}")


@torch.no_grad()
def validate(model, loader, device):
    model.eval()
    correct = 0
    for x, y in loader:
        correct += (model(x.to(device)).argmax(1) == y.to(device)).sum().item()
    correct = hvd.allreduce(torch.tensor(float(correct)), name="val_correct")
    return correct.item() / len(loader.dataset)
