import argparse
import json
import os

import torch
import horovod.torch as hvd

from tbench.config import RunConfig
from tbench.loaders import get_loaders
from tbench.nets import EmbMLP
from tbench.fit import fit
from tbench.ckpt import load_checkpoint

ap = argparse.ArgumentParser()
ap.add_argument("--config", type=str, default=None, help="json file with RunConfig fields")
ap.add_argument("--resume", type=str, default=None)
ap.add_argument("--scale-lr", action="store_true", help="multiply lr by number of workers")
ap.add_argument("--fp16", action="store_true")
args = ap.parse_args()

cfg = RunConfig()
if args.config:
    with open(args.config) as f:
        for k, v in json.load(f).items():
            setattr(cfg, k, v)

hvd.init()
torch.manual_seed(cfg.seed)
device = torch.device("cpu")
if torch.cuda.is_available():
    torch.cuda.set_device(hvd.local_rank())
    device = torch.device("cuda", hvd.local_rank())

train_loader, valid_loader, n_num, cards, train_sampler = get_loaders(cfg)
model = EmbMLP(n_num, cards, cfg.d_embed, cfg.hidden, cfg.n_layers).to(device)

lr = cfg.lr
if args.scale_lr:
    lr = cfg.lr * hvd.size()
optimizer = torch.optim.Adam(model.parameters(), lr=lr)

start_epoch = 0
if args.resume and hvd.rank() == 0:
    start_epoch = load_checkpoint(args.resume, model, optimizer)
start_epoch = hvd.broadcast_object(start_epoch, root_rank=0, name="start_epoch")
hvd.broadcast_parameters(model.state_dict(), root_rank=0)
hvd.broadcast_optimizer_state(optimizer, root_rank=0)

optimizer = hvd.DistributedOptimizer(
    optimizer, named_parameters=model.named_parameters(),
    compression=hvd.Compression.fp16 if args.fp16 else hvd.Compression.none)

best = fit(model, optimizer, train_loader, valid_loader, train_sampler, cfg, device, start_epoch)
if hvd.rank() == 0:
    print(json.dumps({"best_auc": best, "norms": model.embedding_norms(), **cfg.to_dict()}))
