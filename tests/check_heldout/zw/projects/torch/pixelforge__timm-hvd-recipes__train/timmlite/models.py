import torchvision

_model_entrypoints = {}


def register_model(fn):
    _model_entrypoints[fn.__name__] = fn
    return fn


@register_model
def resnet50(num_classes=1000, **kwargs):
    return torchvision.models.resnet50(num_classes=num_classes, **kwargs)


@register_model
def resnet18(num_classes=1000, **kwargs):
    return torchvision.models.resnet18(num_classes=num_classes, **kwargs)


def create_model(model_name, **kwargs):
    if model_name not in _model_entrypoints:
        raise RuntimeError(f'Unknown model ({model_name})')
    return _model_entrypoints[model_name](**kwargs)
