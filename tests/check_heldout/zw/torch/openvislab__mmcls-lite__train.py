#!/usr/bin/env python
"""Train a classifier with Horovod.

    horovodrun -np 4 python train.py configs/resnet18_cifar10.py --work-dir work_dirs/r18
"""
import argparse
import os
import os.path as osp
import time

import torch
import horovod.torch as hvd

from mmcls_lite.config import Config
from mmcls_lite.builder import build_model, build_dataset, build_dataloader, build_optimizer
from mmcls_lite.runner import EpochBasedRunner
from mmcls_lite.hooks import CheckpointHook, CosineLrHook, EvalHook, LoggerHook
from mmcls_lite.utils import get_root_logger, set_random_seed


def parse_args():
    parser = argparse.ArgumentParser(description='Train a classifier (horovod)')
    parser.add_argument('config', nargs='?', default='configs/resnet18_cifar10.py')
    parser.add_argument('--work-dir', help='the dir to save logs and models')
    parser.add_argument('--resume-from', help='the checkpoint file to resume from')
    parser.add_argument('--seed', type=int, default=42, help='random seed')
    parser.add_argument('--no-validate', action='store_true')
    return parser.parse_args()


def main():
    args = parse_args()
    cfg = Config.fromfile(args.config)
    if args.work_dir is not None:
        cfg.work_dir = args.work_dir
    elif cfg.get('work_dir') is None:
        cfg.work_dir = osp.join('./work_dirs', osp.splitext(osp.basename(args.config))[0])

    hvd.init()
    if torch.cuda.is_available():
        torch.cuda.set_device(hvd.local_rank())
    rank, world_size = hvd.rank(), hvd.size()

    os.makedirs(cfg.work_dir, exist_ok=True)
    timestamp = time.strftime('%Y%m%d_%H%M%S')
    logger = get_root_logger(osp.join(cfg.work_dir, f'{timestamp}.log'), rank=rank)
    logger.info(f'horovod: {world_size} processes\nconfig:\n{cfg.pretty_text}')
    set_random_seed(args.seed)

    device = torch.device('cuda' if torch.cuda.is_available() else 'cpu')
    model = build_model(cfg.model).to(device)

    train_set = build_dataset(cfg.data.train)
    train_loader = build_dataloader(train_set, cfg.data.samples_per_gpu, cfg.data.workers_per_gpu,
                                    num_replicas=world_size, rank=rank, shuffle=True, seed=args.seed)

    # the lr in the config is for a single gpu (samples_per_gpu images)
    cfg.optimizer.lr = cfg.optimizer.lr * world_size
    optimizer = build_optimizer(model, cfg.optimizer)
    optimizer = hvd.DistributedOptimizer(optimizer, named_parameters=model.named_parameters())

    runner = EpochBasedRunner(model, optimizer, work_dir=cfg.work_dir, logger=logger,
                              max_epochs=cfg.total_epochs, device=device, rank=rank)
    runner.register_hook(CosineLrHook(base_lr=cfg.optimizer.lr, **cfg.lr_config))
    runner.register_hook(CheckpointHook(**cfg.checkpoint_config))
    runner.register_hook(LoggerHook(**cfg.log_config))
    if not args.no_validate:
        val_set = build_dataset(cfg.data.val)
        val_loader = build_dataloader(val_set, cfg.data.samples_per_gpu, cfg.data.workers_per_gpu,
                                      num_replicas=world_size, rank=rank, shuffle=False)
        runner.register_hook(EvalHook(val_loader, interval=cfg.evaluation.interval))

    if args.resume_from:
        runner.resume(args.resume_from)
    # every process starts from rank 0's weights / optimizer state
    hvd.broadcast_parameters(model.state_dict(), root_rank=0)
    hvd.broadcast_optimizer_state(optimizer, root_rank=0)

    runner.run(train_loader)


if __name__ == '__main__':
    main()
