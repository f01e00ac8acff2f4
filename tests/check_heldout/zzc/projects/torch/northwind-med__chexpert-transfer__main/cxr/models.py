import torch
import torch.nn as nn
from torchvision.models import densenet121


def densenet_from_checkpoint(path):
    model = densenet121(weights=None)
    state = torch.load(path, map_location="cpu")
    model.load_state_dict(state, strict=False)
    return model


def replace_head(model, num_outputs):
    """Swap the 1000-way ImageNet classifier for a fresh multi-label head."""
    model.classifier = nn.Sequential(nn.Dropout(0.2),
                                     nn.Linear(model.classifier.in_features, num_outputs))
    return model
