import torch.nn as nn
import torchvision


def build_model(arch, n_classes):
    net = getattr(torchvision.models, arch)(weights=None)
    net.fc = nn.Linear(net.fc.in_features, n_classes)
    return net
