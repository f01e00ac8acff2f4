import os

import horovod.torch as hvd
import torch
import torch.nn as nn

from . import log
from .config import Config
from .data import load_features, loader, strided_shard
from .model import DSConvKWS


def _device():
    if torch.cuda.is_available():
        torch.cuda.set_device(hvd.local_rank())
        return torch.device("cuda")
    return torch.device("cpu")


def _evaluate(model, test_loader, device):
    model.eval()
    correct = total = 0
    with torch.no_grad():
        for x, y in test_loader:
            correct += (model(x.to(device)).argmax(1).cpu() == y).sum().item()
            total += len(y)
    model.train()
    return correct / total


def run(cfg: Config):
    hvd.init()
    device = _device()
    torch.manual_seed(cfg.seed)
    (tx, ty), (ex, ey) = load_features(cfg.features)
    tx, ty = strided_shard(tx, ty, hvd.size(), hvd.rank(), cfg.seed)
    train_loader = loader(tx, ty, cfg.batch_size, shuffle=True)
    test_loader = loader(ex, ey, 512, shuffle=False)   # full test split, scored by rank 0

    model = DSConvKWS(tx.shape[1], int(ey.max()) + 1, cfg.channels).to(device)
    opt = torch.optim.SGD(model.parameters(), lr=cfg.lr, momentum=cfg.momentum)
    ckpt = os.path.join(cfg.workdir, "state.pt")
    start = 0
    if hvd.rank() == 0 and os.path.exists(ckpt):
        blob = torch.load(ckpt, map_location="cpu")
        model.load_state_dict(blob["model"])
        opt.load_state_dict(blob["opt"])
        start = blob["epoch"] + 1
    start = hvd.broadcast_object(start, root_rank=0)
    hvd.broadcast_parameters(model.state_dict(), root_rank=0)
    hvd.broadcast_optimizer_state(opt, root_rank=0)
    opt = hvd.DistributedOptimizer(opt, named_parameters=model.named_parameters(), op=hvd.Sum)
    criterion = nn.CrossEntropyLoss(label_smoothing=cfg.label_smoothing)

    for epoch in range(start, cfg.epochs):
        for x, y in train_loader:
            opt.zero_grad()
            loss = criterion(model(x.to(device)), y.to(device))
            loss.backward()
            opt.step()
        if hvd.rank() == 0 and (epoch + 1) % cfg.eval_every == 0:
            log.info("epoch %d loss %.4f test acc %.4f", epoch, loss.item(), _evaluate(model, test_loader, device))
            os.makedirs(cfg.workdir, exist_ok=True)
            torch.save({"model": model.state_dict(), "opt": opt.state_dict(), "epoch": epoch}, ckpt)


def cli():
    run(Config.from_args())
