import torch.nn as nn


def conv_block(cin, cout):
    return nn.Sequential(
        nn.Conv2d(cin, cout, 3, padding=1), nn.BatchNorm2d(cout), nn.ReLU(inplace=True), nn.MaxPool2d(2))


class ShortChunkCNN(nn.Module):
    def __init__(self, n_tags=50, width=64, n_layers=5):
        super().__init__()
        self.spec_bn = nn.BatchNorm2d(1)
        chans = [1] + [width * min(2 ** (i // 2), 8) for i in range(n_layers)]
        self.blocks = nn.Sequential(*[conv_block(chans[i], chans[i + 1]) for i in range(n_layers)])
        self.head = nn.Sequential(nn.Linear(chans[-1], chans[-1]), nn.ReLU(), nn.Dropout(0.5),
                                  nn.Linear(chans[-1], n_tags))

    def forward(self, mel):
        h = self.blocks(self.spec_bn(mel))
        h = h.amax(dim=(2, 3))
        return self.head(h)
