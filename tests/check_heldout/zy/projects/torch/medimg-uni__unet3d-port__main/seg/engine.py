import torch
import torch.nn as nn
import torch.nn.functional as F


class UNet3D(nn.Module):
    def __init__(self, cin=1, ncls=2, base=16):
        super().__init__()

        def block(a, b):
            return nn.Sequential(nn.Conv3d(a, b, 3, padding=1), nn.InstanceNorm3d(b), nn.LeakyReLU(0.01),
                                 nn.Conv3d(b, b, 3, padding=1), nn.InstanceNorm3d(b), nn.LeakyReLU(0.01))

        self.enc1, self.enc2, self.enc3 = block(cin, base), block(base, 2 * base), block(2 * base, 4 * base)
        self.up2 = nn.ConvTranspose3d(4 * base, 2 * base, 2, stride=2)
        self.dec2 = block(4 * base, 2 * base)
        self.up1 = nn.ConvTranspose3d(2 * base, base, 2, stride=2)
        self.dec1 = block(2 * base, base)
        self.head = nn.Conv3d(base, ncls, 1)

    def forward(self, x):
        e1 = self.enc1(x)
        e2 = self.enc2(F.max_pool3d(e1, 2))
        e3 = self.enc3(F.max_pool3d(e2, 2))
        d2 = self.dec2(torch.cat([self.up2(e3), e2], 1))
        d1 = self.dec1(torch.cat([self.up1(d2), e1], 1))
        return self.head(d1)


def dice_loss(logits, target, eps=1e-5):
    probs = logits.softmax(1)
    onehot = F.one_hot(target, logits.shape[1]).permute(0, 4, 1, 2, 3).float()
    inter = (probs * onehot).sum((2, 3, 4))
    denom = probs.sum((2, 3, 4)) + onehot.sum((2, 3, 4))
    return 1 - ((2 * inter + eps) / (denom + eps)).mean()


def train_one_epoch(model, loader, optimizer, scaler, device, amp=True):
    model.train()
    running = 0.0
    for step, (img, lab) in enumerate(loader):
        img, lab = img.to(device, non_blocking=True), lab.to(device, non_blocking=True)
        optimizer.zero_grad()
        with torch.autocast(device_type=device.type, enabled=amp):
            logits = model(img)
            loss = F.cross_entropy(logits, lab) + dice_loss(logits.float(), lab)
        scaler.scale(loss).backward()
        optimizer.synchronize()
        scaler.unscale_(optimizer)
        torch.nn.utils.clip_grad_norm_(model.parameters(), 12.0)
        with optimizer.skip_synchronize():
            scaler.step(optimizer)
        scaler.update()
        running += loss.item()
    return running / max(step + 1, 1)


@torch.no_grad()
def evaluate(model, loader, device):
    model.eval()
    scores = []
    for img, lab in loader:
        img, lab = img.to(device), lab.to(device)
        pred = model(img).argmax(1)
        inter = ((pred == 1) & (lab == 1)).sum().item()
        denom = (pred == 1).sum().item() + (lab == 1).sum().item()
        scores.append(2.0 * inter / denom if denom else 1.0)
    return sum(scores) / max(len(scores), 1)
