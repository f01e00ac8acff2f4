import copy
import torch.nn as nn
import torchvision


def resnet18_cifar(n_classes):
    net = torchvision.models.resnet18(num_classes=n_classes)
    net.conv1 = nn.Conv2d(3, 64, 3, 1, 1, bias=False)
    net.maxpool = nn.Identity()
    return net


def frozen_copy(model):
    old = copy.deepcopy(model).eval()
    for p in old.parameters():
        p.requires_grad_(False)
    return old
