"""Model zoo: pick a torchvision architecture (or one of ours) by name."""
import torchvision.models as tv_models

_LOCAL_MODELS = {}


def register(name):
    def deco(fn):
        _LOCAL_MODELS[name] = fn
        return fn
    return deco


def model_names():
    names = [n for n in tv_models.__dict__
             if n.islower() and not n.startswith('__') and callable(tv_models.__dict__[n])]
    return sorted(set(names) | set(_LOCAL_MODELS))


def get_model(arch, num_classes=1000):
    if arch in _LOCAL_MODELS:
        return _LOCAL_MODELS[arch](num_classes=num_classes)
    if arch not in tv_models.__dict__:
        raise ValueError('unknown arch {!r}, choose from {}'.format(arch, model_names()))
    return tv_models.__dict__[arch](num_classes=num_classes)
