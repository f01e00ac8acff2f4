import argparse
from types import SimpleNamespace

_C = dict(
    DATA_ROOT="datasets/cityscapes",
    NUM_CLASSES=19,
    CROP=(512, 1024),
    IMS_PER_GPU=4,
    BASE_LR=0.0005,
    MAX_ITER=90000,
    POLY_POWER=0.9,
    WEIGHT_DECAY=0.0,
    CENTER_WEIGHT=200.0,
    OFFSET_WEIGHT=0.01,
    EVAL_PERIOD=5000,
    CKPT_PERIOD=5000,
    SEED=21,
    OUTPUT_DIR="output/panoptic_deeplab",
    FAKE=False,
)


def get_cfg():
    ap = argparse.ArgumentParser("panoptic-deeplab (horovod)")
    for k, v in _C.items():
        flag = "--" + k.lower().replace("_", "-")
        if isinstance(v, bool):
            ap.add_argument(flag, dest=k, action="store_true", default=v)
        elif isinstance(v, tuple):
            ap.add_argument(flag, dest=k, type=int, nargs=2, default=v)
        else:
            ap.add_argument(flag, dest=k, type=type(v), default=v)
    return SimpleNamespace(**vars(ap.parse_args()))
