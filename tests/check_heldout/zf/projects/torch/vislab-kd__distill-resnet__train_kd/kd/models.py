import torch
import torch.nn as nn
import torchvision


def teacher(num_classes, ckpt=None):
    net = torchvision.models.resnet50(num_classes=num_classes)
    if ckpt:
        net.load_state_dict(torch.load(ckpt, map_location="cpu"))
    for p in net.parameters():
        p.requires_grad_(False)
    return net.eval()


def student(num_classes, width=32):
    return nn.Sequential(
        nn.Conv2d(3, width, 3, padding=1), nn.BatchNorm2d(width), nn.ReLU(),
        nn.MaxPool2d(2),
        nn.Conv2d(width, 2 * width, 3, padding=1), nn.BatchNorm2d(2 * width), nn.ReLU(),
        nn.AdaptiveAvgPool2d(1), nn.Flatten(),
        nn.Linear(2 * width, num_classes),
    )
