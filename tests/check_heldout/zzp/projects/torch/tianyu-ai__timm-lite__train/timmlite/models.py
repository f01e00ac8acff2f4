import torch.nn as nn
import torchvision


def create_model(name, pretrained=False):
    weights = "DEFAULT" if pretrained else None
    return getattr(torchvision.models, name)(weights=weights)


def reset_classifier(model, num_classes):
    in_features = model.fc.in_features
    model.fc = nn.Linear(in_features, num_classes)
    nn.init.trunc_normal_(model.fc.weight, std=0.02)
    nn.init.zeros_(model.fc.bias)
    return model
