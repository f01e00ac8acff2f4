"""Semantic segmentation w/ horovod, AMP and fp16 allreduce.

horovodrun -np 4 python train_seg.py --config configs/default.yaml --set lr=0.02
"""
import torch
import horovod.torch as hvd

from segkit.config import load_config
from segkit.hvd_utils import init_horovod, log0
from segkit.loaders import make_train_loader, make_val_loader
from segkit.engine import TinyFCN, train_one_epoch, evaluate
from segkit.saver import save_checkpoint

cfg = load_config()
init_horovod(cfg)
device = torch.device("cuda" if cfg.cuda else "cpu")

train_loader, train_sampler = make_train_loader(cfg)
val_loader = make_val_loader(cfg)

model = TinyFCN(cfg.num_classes).to(device)
opt = torch.optim.SGD(model.parameters(), lr=cfg.lr * hvd.size(), momentum=cfg.momentum,
                      weight_decay=1e-4)
opt = hvd.DistributedOptimizer(
    opt, named_parameters=model.named_parameters(),
    compression=hvd.Compression.fp16 if cfg.fp16_allreduce else hvd.Compression.none)
hvd.broadcast_parameters(model.state_dict(), root_rank=0)
hvd.broadcast_optimizer_state(opt, root_rank=0)
scaler = torch.cuda.amp.GradScaler(enabled=cfg.amp and cfg.cuda)

log0("config:", cfg)
best = 0.0
for epoch in range(cfg.epochs):
    if train_sampler is not None:
        train_sampler.set_epoch(epoch)
    train_one_epoch(cfg, model, opt, scaler, train_loader, epoch, device)
    score = evaluate(cfg, model, val_loader, device)
    log0("epoch %d  mIoU %.4f" % (epoch, score))
    best = max(best, score)
    save_checkpoint({"model": model.state_dict(), "optimizer": opt.state_dict(),
                     "scaler": scaler.state_dict(), "epoch": epoch, "miou": score},
                    cfg.out_dir, epoch)
log0("best mIoU %.4f" % best)
