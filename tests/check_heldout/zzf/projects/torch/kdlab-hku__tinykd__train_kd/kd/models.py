import torch
import torch.nn as nn
from torchvision.models import resnet18


def cifar_resnet18(num_classes=10):
    m = resnet18(num_classes=num_classes)
    m.conv1 = nn.Conv2d(3, 64, 3, 1, 1, bias=False)
    m.maxpool = nn.Identity()
    return m


class SmallNet(nn.Module):
    """The student: ~0.3M parameters."""

    def __init__(self, num_classes=10, width=32):
        super().__init__()
        def block(i, o):
            return nn.Sequential(nn.Conv2d(i, o, 3, padding=1, bias=False), nn.BatchNorm2d(o), nn.ReLU(inplace=True))
        self.features = nn.Sequential(block(3, width), nn.MaxPool2d(2), block(width, 2 * width), nn.MaxPool2d(2),
                                      block(2 * width, 4 * width), nn.AdaptiveAvgPool2d(1))
        self.fc = nn.Linear(4 * width, num_classes)

    def forward(self, x):
        return self.fc(torch.flatten(self.features(x), 1))


def load_frozen_teacher(path, device):
    teacher = cifar_resnet18()
    state = torch.load(path, map_location="cpu")
    teacher.load_state_dict(state.get("model", state))
    teacher.to(device).eval()
    for p in teacher.parameters():
        p.requires_grad_(False)
    return teacher
