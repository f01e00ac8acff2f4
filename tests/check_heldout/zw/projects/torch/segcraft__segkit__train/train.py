import argparse
import copy
import os
import time

import torch
import horovod.torch as hvd

from segkit.configs import get_config
from segkit.datasets import build_dataset
from segkit.models import build_segmentor
from segkit.apis import train_segmentor
from segkit.utils import get_logger, set_random_seed


def parse_args():
    parser = argparse.ArgumentParser(description='Train a segmentor')
    parser.add_argument('--config', default='fcn_r18_512x1024_cityscapes')
    parser.add_argument('--work-dir', default=None)
    parser.add_argument('--load-from', default=None, help='init weights (not a resume)')
    parser.add_argument('--seed', type=int, default=0)
    parser.add_argument('--deterministic', action='store_true')
    parser.add_argument('--no-validate', action='store_true')
    parser.add_argument('--cfg-options', nargs='+', default=[], help='key=value overrides, e.g. optimizer.lr=0.02')
    return parser.parse_args()


def main():
    args = parse_args()
    cfg = get_config(args.config)
    for kv in args.cfg_options:
        key, value = kv.split('=', 1)
        *parents, leaf = key.split('.')
        node = cfg
        for p in parents:
            node = node[p]
        node[leaf] = type(node[leaf])(value)
    cfg['work_dir'] = args.work_dir or os.path.join('work_dirs', args.config)

    # init distributed env first, since logger depends on the dist info.
    hvd.init()
    if torch.cuda.is_available():
        torch.cuda.set_device(hvd.local_rank())
    os.makedirs(cfg['work_dir'], exist_ok=True)
    timestamp = time.strftime('%Y%m%d_%H%M%S', time.localtime())
    logger = get_logger(os.path.join(cfg['work_dir'], f'{timestamp}.log'))

    # different seed on every rank so that the random crops/flips differ between workers
    seed = args.seed + hvd.rank()
    set_random_seed(seed, deterministic=args.deterministic)
    logger.info(f'Set random seed to {seed}, deterministic: {args.deterministic}')

    # the lr in the configs is tuned for 4 images on 1 gpu
    cfg['optimizer']['lr'] *= hvd.size()

    model = build_segmentor(cfg['model'])
    if args.load_from:
        model.load_state_dict(torch.load(args.load_from, map_location='cpu')['state_dict'], strict=False)
    datasets = [build_dataset(cfg['data']['train'])]
    val_dataset = None if args.no_validate else build_dataset(copy.deepcopy(cfg['data']['val']))
    train_segmentor(model, datasets, cfg, val_dataset=val_dataset, timestamp=timestamp, logger=logger)


if __name__ == '__main__':
    main()
