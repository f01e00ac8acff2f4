import torch
from torch.utils.data import DataLoader, TensorDataset
from torch.utils.data.distributed import DistributedSampler


def load_split(path):
    blob = torch.load(path)
    return TensorDataset(blob["x"].float(), blob["y_cls"].long(), blob["y_reg"].float())


def make_loader(path, batch_size, size, rank, train=True):
    ds = load_split(path)
    sampler = DistributedSampler(ds, num_replicas=size, rank=rank, shuffle=train)
    return DataLoader(ds, batch_size=batch_size, sampler=sampler, drop_last=train), sampler


@torch.no_grad()
def evaluate(model, loader, device):
    model.eval()
    correct, sq_err, n = 0, 0.0, 0
    for x, y_cls, y_reg in loader:
        x, y_cls, y_reg = x.to(device), y_cls.to(device), y_reg.to(device)
        logits, reg = model(x)
        correct += (logits.argmax(1) == y_cls).sum().item()
        sq_err += ((reg - y_reg) ** 2).sum().item()
        n += x.shape[0]
    model.train()
    return {"acc": correct / max(n, 1), "rmse": (sq_err / max(n, 1)) ** 0.5}
