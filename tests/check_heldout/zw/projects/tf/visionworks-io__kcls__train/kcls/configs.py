"""Configs are classes; a config inherits its base's fields and overrides some."""
import copy


class BaseConfig:
    seed = 0
    samples_per_gpu = 64
    total_epochs = 200
    label_smoothing = 0.0
    model = dict(type='ResNetCifar', depth=18, num_classes=10)
    # tuned on a single GPU with samples_per_gpu=64
    optimizer = dict(type='SGD', lr=0.05, momentum=0.9, nesterov=True, weight_decay=5e-4,
                     lr_schedule=dict(policy='cosine', warmup_epochs=5))
    data_train = dict(name='cifar10', split='train')
    data_val = dict(name='cifar10', split='test')


class ResNet18_CIFAR10(BaseConfig):
    pass


class ResNet18_CIFAR100(BaseConfig):
    label_smoothing = 0.1
    model = dict(BaseConfig.model, num_classes=100)
    data_train = dict(name='cifar100', split='train')
    data_val = dict(name='cifar100', split='test')


class ResNet34_CIFAR100(ResNet18_CIFAR100):
    model = dict(ResNet18_CIFAR100.model, depth=34)
    total_epochs = 300


def get_config(name):
    cls = globals()[name]
    return type(name, (cls,), {k: copy.deepcopy(getattr(cls, k)) for k in dir(cls) if not k.startswith('_')})
