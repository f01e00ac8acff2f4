import json

DEFAULTS = {
    'dataset': 'cub200',
    'data_root': 'data/CUB_200_2011',
    'backbone_weights': 'pretrained/bninception.pth',
    'embedding_size': 512,
    'batch_size': 60,            # per worker
    'lr': 1e-4,
    'center_lr': 0.5,
    'center_weight': 0.005,
    'margin': 0.2,
    'weight_decay': 5e-4,
    'warmup_epochs': 1,
    'lr_decay_epochs': [20, 35],
    'epochs': 40,
    'save_dir': 'checkpoints',
}


def load_config(path=None, **overrides):
    cfg = dict(DEFAULTS)
    if path:
        with open(path) as fh:
            cfg.update(json.load(fh))
    cfg.update({k: v for k, v in overrides.items() if v is not None})
    return cfg
