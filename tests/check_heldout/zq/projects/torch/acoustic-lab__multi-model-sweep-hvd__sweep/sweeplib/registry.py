import torch.nn as nn

_REGISTRY = {}


def register(name):
    def deco(fn):
        _REGISTRY[name] = fn
        return fn
    return deco


@register("mlp")
def mlp(n_mels, n_classes, n_frames=64, hidden=256):
    return nn.Sequential(nn.Flatten(), nn.Linear(n_mels * n_frames, hidden), nn.ReLU(),
                         nn.Dropout(0.3), nn.Linear(hidden, n_classes))


@register("cnn")
def cnn(n_mels, n_classes, width=32):
    return nn.Sequential(
        nn.Unflatten(1, (1, n_mels)),
        nn.Conv2d(1, width, 3, padding=1), nn.BatchNorm2d(width), nn.ReLU(), nn.MaxPool2d(2),
        nn.Conv2d(width, 2 * width, 3, padding=1), nn.BatchNorm2d(2 * width), nn.ReLU(),
        nn.AdaptiveAvgPool2d(1), nn.Flatten(), nn.Linear(2 * width, n_classes))


class GRUClassifier(nn.Module):
    def __init__(self, n_mels, n_classes, hidden=128):
        super().__init__()
        self.rnn = nn.GRU(n_mels, hidden, batch_first=True, bidirectional=True)
        self.out = nn.Linear(2 * hidden, n_classes)

    def forward(self, x):  # x: (B, n_mels, frames)
        h, _ = self.rnn(x.transpose(1, 2))
        return self.out(h.mean(dim=1))


@register("gru")
def gru(n_mels, n_classes, hidden=128):
    return GRUClassifier(n_mels, n_classes, hidden)


def build(arch, **kwargs):
    return _REGISTRY[arch](**kwargs)
