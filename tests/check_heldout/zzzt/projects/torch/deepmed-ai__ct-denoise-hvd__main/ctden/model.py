import torch.nn as nn


class REDCNN(nn.Module):
    def __init__(self, ch=32):
        super().__init__()
        self.body = nn.Sequential(
            nn.Conv2d(1, ch, 5, padding=2), nn.ReLU(True),
            nn.Conv2d(ch, ch, 5, padding=2), nn.ReLU(True),
            nn.Conv2d(ch, ch, 5, padding=2), nn.ReLU(True),
            nn.Conv2d(ch, 1, 5, padding=2))

    def forward(self, x):
        return x + self.body(x)
