from types import SimpleNamespace as NS

_C = NS(
    MODEL=NS(NAME='vit_b_16', PRETRAIN_PATH='pretrained/vit_b_16_imagenet.pth', DEVICE_ID='0',
             ID_LOSS_WEIGHT=1.0, TRI_LOSS_WEIGHT=1.0),
    INPUT=NS(SIZE=(224, 224)),
    DATASETS=NS(ROOT='data/MSMT17'),
    SOLVER=NS(IMS_PER_BATCH=32, BASE_LR=0.008, WARMUP_EPOCHS=5, MAX_EPOCHS=120, MARGIN=0.3,
              CHECKPOINT_PERIOD=20, EVAL_PERIOD=20, SEED=1234),
    OUTPUT_DIR='logs/msmt17_vit',
)


def get_cfg(overrides=()):
    import copy
    cfg = copy.deepcopy(_C)
    for item in overrides:           # e.g. SOLVER.BASE_LR=0.004
        key, val = item.split('=', 1)
        node = cfg
        *path, leaf = key.split('.')
        for p in path:
            node = getattr(node, p)
        setattr(node, leaf, type(getattr(node, leaf))(val))
    return cfg
