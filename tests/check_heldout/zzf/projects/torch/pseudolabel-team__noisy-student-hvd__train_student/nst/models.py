import torch
from torchvision import models


def build_model(arch, num_classes, drop_rate=0.0):
    net = getattr(models, arch)(num_classes=num_classes)
    if drop_rate > 0 and hasattr(net, "fc"):
        net.fc = torch.nn.Sequential(torch.nn.Dropout(drop_rate), net.fc)
    return net


def load_teacher(arch, num_classes, path, device):
    net = build_model(arch, num_classes)
    state = torch.load(path, map_location="cpu")
    net.load_state_dict(state)
    return net.to(device).eval()
