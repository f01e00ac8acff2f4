import torch.nn as nn
import torchvision


def grasp_net(pretrained=False):
    net = torchvision.models.resnet18(weights="IMAGENET1K_V1" if pretrained else None)
    net.conv1 = nn.Conv2d(1, 64, kernel_size=7, stride=2, padding=3, bias=False)
    net.fc = nn.Sequential(nn.Dropout(0.2), nn.Linear(net.fc.in_features, 1))
    return net
