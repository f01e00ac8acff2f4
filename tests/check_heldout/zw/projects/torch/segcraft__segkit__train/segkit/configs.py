import copy


def _merge(base, override):
    out = copy.deepcopy(base)
    for k, v in override.items():
        out[k] = _merge(out[k], v) if isinstance(v, dict) and isinstance(out.get(k), dict) else v
    return out


_base_runtime = dict(
    max_iters=80000, log_interval=50, checkpoint_interval=8000, eval_interval=8000,
    optimizer=dict(type='SGD', lr=0.01, momentum=0.9, weight_decay=5e-4),
    lr_config=dict(policy='poly', power=0.9, min_lr=1e-4),
)

_base_cityscapes = dict(
    data=dict(
        samples_per_gpu=4, workers_per_gpu=4,
        train=dict(type='NpySegDataset', root='data/cityscapes', split='train', crop_size=(512, 1024)),
        val=dict(type='NpySegDataset', root='data/cityscapes', split='val', crop_size=None)),
    num_classes=19, ignore_index=255,
)

_CONFIGS = {
    'fcn_r18_512x1024_cityscapes': _merge(_merge(_base_runtime, _base_cityscapes),
                                          dict(model=dict(type='FCN', backbone='resnet18', num_classes=19))),
    'fcn_r50_512x1024_cityscapes': _merge(_merge(_base_runtime, _base_cityscapes),
                                          dict(model=dict(type='FCN', backbone='resnet50', num_classes=19),
                                               data=dict(samples_per_gpu=2), optimizer=dict(lr=0.005))),
}


def get_config(name):
    return copy.deepcopy(_CONFIGS[name])
