import torch
import torch.nn as nn
import torch.nn.functional as F
import horovod.torch as hvd


class Encoder(nn.Module):
    def __init__(self, in_ch=3, dim=160):
        super().__init__()
        self.net = nn.Sequential(
            nn.Conv2d(in_ch, 40, 3, 2, 1), nn.ReLU(),
            nn.Conv2d(40, 80, 3, 2, 1), nn.ReLU(),
            nn.Conv2d(80, dim, 3, 2, 1), nn.ReLU(),
            nn.AdaptiveAvgPool2d(1), nn.Flatten())

    def forward(self, x):
        return self.net(x)


class OnlineLearner:
    """ER with a cosine classifier; the head gets its own (faster) optimizer."""

    def __init__(self, in_ch, n_classes, lr, head_lr, device):
        self.device = device
        self.encoder = Encoder(in_ch).to(device)
        self.head = nn.Linear(160, n_classes, bias=False).to(device)
        self.scale = 10.0
        enc_opt = torch.optim.SGD(self.encoder.parameters(), lr=lr, momentum=0.9)
        self.enc_opt = hvd.DistributedOptimizer(
            enc_opt, named_parameters=self.encoder.named_parameters(prefix="encoder"))
        self.head_opt = torch.optim.Adam(self.head.parameters(), lr=head_lr)

    def broadcast(self):
        hvd.broadcast_parameters(self.encoder.state_dict(), root_rank=0)
        hvd.broadcast_parameters(self.head.state_dict(), root_rank=0)
        hvd.broadcast_optimizer_state(self.enc_opt, root_rank=0)

    def logits(self, x):
        z = F.normalize(self.encoder(x), dim=1)
        w = F.normalize(self.head.weight, dim=1)
        return self.scale * z @ w.t()

    def observe(self, x, y, replay):
        if replay is not None:
            x = torch.cat([x, replay[0]])
            y = torch.cat([y, replay[1]])
        x, y = x.to(self.device), y.to(self.device)
        self.enc_opt.zero_grad()
        self.head_opt.zero_grad()
        loss = F.cross_entropy(self.logits(x), y)
        loss.backward()
        self.enc_opt.step()
        self.head_opt.step()
        return loss.item()

    def state_dict(self):
        return {"encoder": self.encoder.state_dict(), "head": self.head.state_dict(),
                "enc_opt": self.enc_opt.state_dict(), "head_opt": self.head_opt.state_dict()}
