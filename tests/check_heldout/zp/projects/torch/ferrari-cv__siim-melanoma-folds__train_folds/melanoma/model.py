import torch.nn as nn
import torchvision


def build_model(arch="resnet18", pretrained=False):
    net = getattr(torchvision.models, arch)(weights="DEFAULT" if pretrained else None)
    net.fc = nn.Sequential(nn.Dropout(0.3), nn.Linear(net.fc.in_features, 1))
    return net
