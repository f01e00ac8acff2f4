"""Training function executed on every Horovod worker (see launch.py)."""
import horovod.torch as hvd
import torch
import torch.nn.functional as F

from txn.checkpoint import save_checkpoint
from txn.data import get_loaders
from txn.metrics import batch_counts, summarize
from txn.model import txn_mlp


def train_fn(cfg):
    hvd.init()
    if torch.cuda.is_available():
        torch.cuda.set_device(hvd.local_rank())
    device = torch.device("cuda" if torch.cuda.is_available() else "cpu")

    train_loader, val_loader, sampler = get_loaders(cfg["data_dir"], cfg["batch_size"])
    model = txn_mlp(cfg["num_features"]).to(device)
    optimizer = torch.optim.Adam(model.parameters(), lr=cfg["lr"])
    optimizer = hvd.DistributedOptimizer(optimizer, named_parameters=model.named_parameters())
    hvd.broadcast_parameters(model.state_dict(), root_rank=0)
    hvd.broadcast_optimizer_state(optimizer, root_rank=0)
    pos_weight = torch.tensor(cfg["pos_weight"], device=device)

    history = []
    for epoch in range(cfg["epochs"]):
        model.train()
        sampler.set_epoch(epoch)
        for x, y in train_loader:
            x, y = x.to(device), y.to(device)
            optimizer.zero_grad()
            loss = F.binary_cross_entropy_with_logits(model(x).squeeze(1), y, pos_weight=pos_weight)
            loss.backward()
            optimizer.step()

        model.eval()
        counts = torch.zeros(5)
        with torch.no_grad():
            for x, y in val_loader:
                counts += batch_counts(model(x.to(device)).squeeze(1).cpu(), y)
        metrics = summarize(hvd.allreduce(counts, op=hvd.Sum, name="val_counts"))
        save_checkpoint(model, optimizer, epoch, cfg["out_dir"], metrics)
        if hvd.rank() == 0:
            print(f"epoch {epoch}: {metrics}")
        history.append(metrics)
    return history
