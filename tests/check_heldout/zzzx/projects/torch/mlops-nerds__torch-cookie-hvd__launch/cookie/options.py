import argparse
import json

DEFAULTS = {
    'model': 'resnet_tiny',
    'optimizer': 'sgd',
    'num_classes': 10,
    'epochs': 30,
    'batch_size': 128,
    'lr': 0.05,
    'weight_decay': 5e-4,
    'seed': 1234,
    'num_proc': 2,
    'data': 'data/cifar10_train.pt',
    'val_split': 5000,
    'out_dir': 'runs/cookie',
    'save_every': 1,
    'cuda': True,
    'verbose': 0,
}


def parse(argv=None):
    p = argparse.ArgumentParser('cookie')
    p.add_argument('--config', default=None, help='json file overriding the defaults')
    for k, v in DEFAULTS.items():
        flag = '--' + k.replace('_', '-')
        if isinstance(v, bool):
            p.add_argument(flag, dest=k, type=lambda s: s.lower() in ('1', 'true', 'yes'), default=None)
        else:
            p.add_argument(flag, dest=k, type=type(v), default=None)
    args = p.parse_args(argv)
    cfg = dict(DEFAULTS)
    if args.config:
        with open(args.config) as f:
            cfg.update(json.load(f))
    for k in DEFAULTS:
        v = getattr(args, k)
        if v is not None:
            cfg[k] = v
    return cfg
