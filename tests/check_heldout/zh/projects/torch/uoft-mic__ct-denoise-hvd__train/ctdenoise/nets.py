import torch.nn as nn


class REDCNN(nn.Module):
    """Residual encoder-decoder CNN (Chen et al. 2017), lightly trimmed."""

    def __init__(self, ch=96):
        super().__init__()
        self.enc = nn.ModuleList([nn.Conv2d(1 if i == 0 else ch, ch, 5) for i in range(5)])
        self.dec = nn.ModuleList([nn.ConvTranspose2d(ch, 1 if i == 4 else ch, 5) for i in range(5)])
        self.relu = nn.ReLU()

    def forward(self, x):
        res1 = x
        h = self.relu(self.enc[0](x))
        h = self.relu(self.enc[1](h))
        res2 = h
        h = self.relu(self.enc[2](h))
        h = self.relu(self.enc[3](h))
        res3 = h
        h = self.relu(self.enc[4](h))
        h = self.dec[0](h) + res3
        h = self.dec[1](self.relu(h))
        h = self.dec[2](self.relu(h)) + res2
        h = self.dec[3](self.relu(h))
        h = self.dec[4](self.relu(h)) + res1
        return self.relu(h)
