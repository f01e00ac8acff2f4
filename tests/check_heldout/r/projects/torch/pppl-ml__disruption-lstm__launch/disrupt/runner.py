"""The training function. It is started once per worker by horovod.run (see launch.py)."""
from dataclasses import dataclass

import horovod.torch as hvd
import torch

from .models import DisruptionLSTM, UncertaintyWeights
from .shots import make_loaders


@dataclass
class TrainConfig:
    shot_dir: str
    epochs: int = 30
    batch_size: int = 32          # per worker
    lr: float = 1e-3              # single-worker lr, scaled by the worker count below
    hidden: int = 128
    seq_len: int = 256
    out: str = "disruption_lstm.pt"


def train(cfg):
    if torch.cuda.is_available():
        torch.cuda.set_device(hvd.local_rank())
    device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
    torch.manual_seed(1)

    train_loader, val_loader, sampler = make_loaders(cfg.shot_dir, cfg.seq_len, cfg.batch_size,
                                                     hvd.rank(), hvd.size())
    model = DisruptionLSTM(n_signals=train_loader.dataset.n_signals, hidden=cfg.hidden).to(device)
    weights = UncertaintyWeights(n_tasks=2).to(device)

    opt = torch.optim.Adam(model.parameters(), lr=cfg.lr * hvd.size())
    opt = hvd.DistributedOptimizer(opt, named_parameters=model.named_parameters())
    # task weights (Kendall et al. 2018) get their own optimizer so they can use a smaller lr
    opt_w = torch.optim.Adam(weights.parameters(), lr=1e-3)
    hvd.broadcast_parameters(model.state_dict(), root_rank=0)
    hvd.broadcast_optimizer_state(opt, root_rank=0)

    bce = torch.nn.BCEWithLogitsLoss()
    val_loss = float("nan")
    for epoch in range(cfg.epochs):
        sampler.set_epoch(epoch)
        model.train()
        for x, is_disr, ttd in train_loader:
            x, is_disr, ttd = x.to(device), is_disr.to(device), ttd.to(device)
            logit, ttd_pred = model(x)
            l_cls = bce(logit, is_disr)
            l_reg = ((ttd_pred - ttd) ** 2 * is_disr).sum() / is_disr.sum().clamp(min=1)
            loss = weights([l_cls, l_reg])
            opt.zero_grad()
            opt_w.zero_grad()
            loss.backward()
            opt.step()
            opt_w.step()

        model.eval()
        tot = torch.zeros(2)
        with torch.no_grad():
            for x, is_disr, _ in val_loader:
                logit, _ = model(x.to(device))
                tot += torch.tensor([bce(logit, is_disr.to(device)).item() * len(x), len(x)])
        tot = hvd.allreduce(tot, op=hvd.Sum, name="val_bce")
        val_loss = (tot[0] / tot[1]).item()
        if hvd.rank() == 0:
            print(f"epoch {epoch}: val BCE {val_loss:.4f}  task weights {weights.log_vars.tolist()}", flush=True)
            torch.save({"model": model.state_dict(), "weights": weights.state_dict()}, cfg.out)
    return val_loss
