import copy
import json

_C = {
    'MODEL': {'NUM_CLASSES': 10, 'WIDTH': 48, 'WEIGHTS': ''},
    'DATASETS': {'TRAIN': 'data/dota_tiles/train', 'VAL': 'data/dota_tiles/val'},
    'DATALOADER': {'NUM_WORKERS': 4, 'IMS_PER_GPU': 8},
    # BASE_LR is the single-GPU value for IMS_PER_GPU images
    'SOLVER': {'BASE_LR': 0.01, 'MOMENTUM': 0.9, 'WEIGHT_DECAY': 1e-4,
               'MAX_EPOCH': 24, 'STEPS': (16, 22), 'WARMUP_ITERS': 500},
    'OUTPUT_DIR': './output',
    'SEED': 7,
}


def get_cfg():
    return copy.deepcopy(_C)


def merge_from_file(cfg, path):
    with open(path) as f:
        _merge(cfg, json.load(f))
    return cfg


def merge_from_list(cfg, opts):
    for key, value in zip(opts[0::2], opts[1::2]):
        node = cfg
        *parents, leaf = key.split('.')
        for p in parents:
            node = node[p]
        node[leaf] = type(node[leaf])(json.loads(value)) if not isinstance(node[leaf], str) else value
    return cfg


def _merge(dst, src):
    for k, v in src.items():
        if isinstance(v, dict) and isinstance(dst.get(k), dict):
            _merge(dst[k], v)
        else:
            dst[k] = v
