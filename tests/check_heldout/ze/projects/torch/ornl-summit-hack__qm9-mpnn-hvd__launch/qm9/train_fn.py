import torch
import torch.nn.functional as F

import horovod.torch as hvd

from .data import load_split, make_loaders
from .model import FingerprintMPNN
from .utils import EpochTimer, log, save_rank0, write_scaling_row


def train_fn(cfg):
    """Runs in every worker process started by horovod.run."""
    if torch.cuda.is_available():
        torch.cuda.set_device(hvd.local_rank())
    device = torch.device("cuda" if torch.cuda.is_available() else "cpu")

    train_set, val_set = load_split(cfg["data"], cfg["target"])
    train_loader, val_loader, sampler = make_loaders(train_set, val_set, cfg["batch_size"],
                                                     hvd.size(), hvd.rank())

    model = FingerprintMPNN(in_dim=train_set.tensors[0].shape[1]).to(device)
    opt = torch.optim.AdamW(model.parameters(), lr=cfg["lr"] * hvd.size())
    hvd.broadcast_parameters(model.state_dict(), root_rank=0)
    if cfg["resume"] and hvd.rank() == 0:
        model.load_state_dict(torch.load(cfg["resume"], map_location=device))
    opt = hvd.DistributedOptimizer(opt, named_parameters=model.named_parameters())

    timer = EpochTimer()
    for epoch in range(cfg["epochs"]):
        sampler.set_epoch(epoch)
        timer.start()
        model.train()
        for x, y in train_loader:
            x, y = x.to(device), y.to(device)
            opt.zero_grad()
            loss = F.mse_loss(model(x), y)
            loss.backward()
            opt.step()
        timer.stop()
        # every rank scores the full validation split, so rank 0's number is the global one
        model.eval()
        with torch.no_grad():
            mae = sum(F.l1_loss(model(x.to(device)), y.to(device), reduction="sum").item()
                      for x, y in val_loader) / len(val_set)
        log(f"epoch {epoch} val MAE {mae:.4f}")

    save_rank0(model, cfg["out"])
    write_scaling_row("scaling_qm9.csv", hvd.size(), timer.times, mae)
    return mae
