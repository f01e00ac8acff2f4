import torch.nn as nn
import torchvision.models as tvm

_zoo = {
    'resnet18': lambda nc: tvm.resnet18(num_classes=nc),
    'resnet50': lambda nc: tvm.resnet50(num_classes=nc),
    'mobilenetv3_small': lambda nc: tvm.mobilenet_v3_small(num_classes=nc),
    'efficientnet_b0': lambda nc: tvm.efficientnet_b0(num_classes=nc),
}


def list_models():
    return sorted(_zoo)


def create_model(name, num_classes=1000, drop_rate=0.0):
    model = _zoo[name](num_classes)
    if drop_rate > 0 and hasattr(model, 'fc'):
        model.fc = nn.Sequential(nn.Dropout(drop_rate), model.fc)
    return model
