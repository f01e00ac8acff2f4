"""Deep metric learning with batch-hard triplet loss on CUB/Cars-style data, Horovod edition."""
import os
from dataclasses import dataclass, field

import numpy as np
import torch
import horovod.torch as hvd
from torch.utils.data import DataLoader, TensorDataset
from torch.utils.data.distributed import DistributedSampler

from dml.evaluation import embed, recall_at_k
from dml.losses import BatchHardTriplet
from dml.net import EmbeddingNet
from dml.samplers import PKSampler


@dataclass
class Config:
    data: str = os.environ.get("DML_DATA", "data/cub64.npz")
    p: int = 16
    k: int = 4
    embed_dim: int = 128
    margin: float = 0.2
    lr: float = 3e-4
    epochs: int = 100
    eval_every: int = 5
    ks: tuple = field(default_factory=lambda: (1, 2, 4, 8))
    ckpt: str = "checkpoints/triplet.pt"


def load_split(path, split):
    blob = np.load(path)
    x = torch.from_numpy(blob["x_" + split].astype(np.float32) / 255.0)
    return TensorDataset(x, torch.from_numpy(blob["y_" + split].astype(np.int64)))


def main(cfg: Config):
    hvd.init()
    device = torch.device("cpu")
    if torch.cuda.is_available():
        torch.cuda.set_device(hvd.local_rank())
        device = torch.device("cuda")

    train_ds, test_ds = load_split(cfg.data, "train"), load_split(cfg.data, "test")
    sampler = PKSampler(train_ds.tensors[1].tolist(), p=cfg.p, k=cfg.k,
                        num_replicas=hvd.size(), rank=hvd.rank(), seed=0)
    train_loader = DataLoader(train_ds, batch_sampler=sampler, num_workers=2)
    test_sampler = DistributedSampler(test_ds, num_replicas=hvd.size(), rank=hvd.rank(), shuffle=False)
    test_loader = DataLoader(test_ds, batch_size=256, sampler=test_sampler)

    model = EmbeddingNet(in_ch=train_ds.tensors[0].shape[1], dim=cfg.embed_dim).to(device)
    criterion = BatchHardTriplet(cfg.margin)
    opt = torch.optim.Adam(model.parameters(), lr=cfg.lr * hvd.size())
    opt = hvd.DistributedOptimizer(opt, named_parameters=model.named_parameters())
    hvd.broadcast_parameters(model.state_dict(), root_rank=0)
    hvd.broadcast_optimizer_state(opt, root_rank=0)

    for epoch in range(1, cfg.epochs + 1):
        model.train()
        sampler.set_epoch(epoch)
        running = 0.0
        for x, y in train_loader:
            x, y = x.to(device), y.to(device)
            loss = criterion(model(x), y)
            opt.zero_grad()
            loss.backward()
            opt.step()
            running += loss.item()
        if epoch % cfg.eval_every == 0:
            embs, labels = embed(model, test_loader, device)
            rec = recall_at_k(embs, labels, cfg.ks)
            if hvd.rank() == 0:
                print(f"[{epoch}] loss {running / max(1, len(train_loader)):.4f} "
                      + " ".join(f"R@{k}={100 * v:.1f}" for k, v in rec.items()))
                os.makedirs(os.path.dirname(cfg.ckpt), exist_ok=True)
                torch.save({"epoch": epoch, "state_dict": model.state_dict()}, cfg.ckpt)


if __name__ == "__main__":
    main(Config())
