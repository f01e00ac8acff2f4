"""Entry point of the cookie training package.

    python launch.py --num-proc 4 --model resnet_tiny --epochs 30

Spawns the workers itself through horovod.run (gloo), no horovodrun needed.
"""
import os
import sys

import torch
import horovod
import horovod.torch as hvd

from cookie import options
from cookie.data import build_loaders
from cookie.registry import MODELS, OPTIMIZERS
from cookie.trainer import Trainer


def train_fn(cfg):
    if hvd.rank() == 0:
        print('[cookie] config:', cfg, flush=True)

    if cfg['cuda'] and torch.cuda.is_available():
        torch.cuda.set_device(hvd.local_rank())
    torch.manual_seed(cfg['seed'])

    train_loader, val_loader, train_sampler = build_loaders(cfg, hvd.size(), hvd.rank())

    model = MODELS.build(cfg['model'], num_classes=cfg['num_classes'])
    if cfg['cuda'] and torch.cuda.is_available():
        model.cuda()

    lr = cfg['lr'] * hvd.size()
    optimizer = OPTIMIZERS.build(cfg['optimizer'], model.parameters(), lr=lr,
                                 weight_decay=cfg['weight_decay'])
    optimizer = hvd.DistributedOptimizer(optimizer, named_parameters=model.named_parameters(),
                                         op=hvd.Average)

    hvd.broadcast_parameters(model.state_dict(), root_rank=0)
    hvd.broadcast_optimizer_state(optimizer, root_rank=0)

    trainer = Trainer(cfg, model, optimizer, train_loader, val_loader, train_sampler)
    trainer.fit()
    return trainer.best_acc


def main(argv=None):
    cfg = options.parse(argv)
    hvd.init()
    os.makedirs(cfg['out_dir'], exist_ok=True)
    results = horovod.run(train_fn, args=(cfg,), num_proc=cfg['num_proc'],
                          use_gloo=True, verbose=cfg['verbose'])
    print('best accuracy per worker:', results)


if __name__ == '__main__':
    sys.exit(main())
