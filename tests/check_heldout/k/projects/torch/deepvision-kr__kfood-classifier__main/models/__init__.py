import torch.nn as nn
from torchvision import models


def get_model(arch, num_classes, pretrained=True):
    if arch == "resnet50":
        net = models.resnet50(weights="IMAGENET1K_V2" if pretrained else None)
        net.fc = nn.Linear(net.fc.in_features, num_classes)
    elif arch == "efficientnet_b0":
        net = models.efficientnet_b0(weights="IMAGENET1K_V1" if pretrained else None)
        net.classifier[1] = nn.Linear(net.classifier[1].in_features, num_classes)
    elif arch == "mobilenet_v3":
        net = models.mobilenet_v3_large(weights="IMAGENET1K_V2" if pretrained else None)
        net.classifier[3] = nn.Linear(net.classifier[3].in_features, num_classes)
    else:
        raise ValueError(f"unknown arch {arch}")
    return net
