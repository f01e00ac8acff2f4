import torch
import torch.nn.functional as F

from . import comm


def prepare(model, optimizer):
    """Put model and optimizer under the active backend."""
    if comm._state["backend"] == "nccl":
        model = torch.nn.parallel.DistributedDataParallel(model, device_ids=[comm._state["local_rank"]])
    elif comm._state["backend"] == "horovod":
        hvd = comm.hvd()
        hvd.broadcast_parameters(model.state_dict(), root_rank=0)
        hvd.broadcast_optimizer_state(optimizer, root_rank=0)
    return model, optimizer


def dice_loss(logits, target, eps=1.0):
    p = torch.sigmoid(logits)
    inter = (p * target).sum((1, 2, 3))
    return 1 - ((2 * inter + eps) / (p.sum((1, 2, 3)) + target.sum((1, 2, 3)) + eps)).mean()


def run_epoch(model, loader, optimizer, device, train=True):
    model.train(train)
    total, n = 0.0, 0
    with torch.set_grad_enabled(train):
        for x, y in loader:
            x, y = x.to(device), y.to(device)
            logits = model(x)
            loss = F.binary_cross_entropy_with_logits(logits, y) + dice_loss(logits, y)
            if train:
                optimizer.zero_grad()
                loss.backward()
                optimizer.step()
            total += loss.item() * x.size(0)
            n += x.size(0)
    return comm.allreduce_mean(total / max(n, 1), name="epoch_loss_" + ("train" if train else "val"))
