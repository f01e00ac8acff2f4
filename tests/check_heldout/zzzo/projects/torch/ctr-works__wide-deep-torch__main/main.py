"""Wide & Deep on Avazu with Horovod.

    horovodrun -np 4 -H node1:2,node2:2 python main.py --config configs/avazu.yaml
"""
import torch
import horovod.torch as hvd

from widedeep.config import load_config
from widedeep.hvd_utils import init_horovod, rank0_print
from widedeep.dataset import build_loaders, FIELDS
from widedeep.model import WideAndDeep
from widedeep import engine

cfg = load_config()
device = init_horovod(cfg.cpu)
torch.manual_seed(42)

train_dl, valid_dl, train_sampler = build_loaders(cfg)
model = WideAndDeep(len(FIELDS), cfg.hash_size, cfg.embed_dim, cfg.deep_layers).to(device)

world = hvd.size()
opt_wide = torch.optim.SGD([p for _, p in model.wide_named_params()], lr=cfg.lr_wide * world)
opt_deep = torch.optim.Adam([p for _, p in model.deep_named_params()], lr=cfg.lr_deep * world)
opt_wide = hvd.DistributedOptimizer(opt_wide, named_parameters=model.wide_named_params())
opt_deep = hvd.DistributedOptimizer(opt_deep, named_parameters=model.deep_named_params(),
                                    compression=hvd.Compression.fp16)

hvd.broadcast_parameters(model.state_dict(), root_rank=0)
hvd.broadcast_optimizer_state(opt_deep, root_rank=0)

best = 0.0
for epoch in range(cfg.epochs):
    train_sampler.set_epoch(epoch)
    engine.train_one_epoch(model, train_dl, opt_wide, opt_deep, device, epoch)
    res = engine.validate(model, valid_dl, device)
    rank0_print("epoch %d  valid logloss %.5f  auc %.5f" % (epoch, res["logloss"], res["auc"]))
    if hvd.rank() == 0 and res["auc"] > best:
        best = res["auc"]
        engine.save(model, opt_deep, epoch, cfg.save_dir)
