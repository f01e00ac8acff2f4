import torch.nn as nn
import torchvision.models as tvm

_ZOO = {
    "resnet18": (tvm.resnet18, "fc"),
    "resnet50": (tvm.resnet50, "fc"),
    "mobilenet_v3_small": (tvm.mobilenet_v3_small, "classifier.3"),
    "efficientnet_b0": (tvm.efficientnet_b0, "classifier.1"),
}


def available():
    return sorted(_ZOO)


def get_model(name, num_classes, pretrained=False):
    ctor, head = _ZOO[name]
    model = ctor(weights="DEFAULT" if pretrained else None)
    parent = model
    *path, last = head.split(".")
    for attr in path:
        parent = getattr(parent, attr)
    old = getattr(parent, last) if not last.isdigit() else parent[int(last)]
    new = nn.Linear(old.in_features, num_classes)
    if last.isdigit():
        parent[int(last)] = new
    else:
        setattr(parent, last, new)
    model.head_name = head
    return model
