import torch
import torch.nn as nn
from torchvision.models import resnet18


def resnet18_from_file(path, num_classes):
    """torchvision ResNet-18 with weights read from a local file (no internet on the cluster)."""
    model = resnet18(weights=None)
    state = torch.load(path, map_location="cpu")
    model.load_state_dict(state)
    model.fc = nn.Linear(model.fc.in_features, num_classes)
    return model
