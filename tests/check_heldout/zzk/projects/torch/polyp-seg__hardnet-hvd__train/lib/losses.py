import torch
import torch.nn.functional as F


def structure_loss(pred, mask):
    """Weighted BCE + weighted IoU (PraNet)."""
    weit = 1 + 5 * torch.abs(F.avg_pool2d(mask, kernel_size=31, stride=1, padding=15) - mask)
    wbce = F.binary_cross_entropy_with_logits(pred, mask, reduction="none")
    wbce = (weit * wbce).sum(dim=(2, 3)) / weit.sum(dim=(2, 3))
    pred = torch.sigmoid(pred)
    inter = ((pred * mask) * weit).sum(dim=(2, 3))
    union = ((pred + mask) * weit).sum(dim=(2, 3))
    wiou = 1 - (inter + 1) / (union - inter + 1)
    return (wbce + wiou).mean()


@torch.no_grad()
def dice_score(pred, mask, eps=1e-6):
    pred = (torch.sigmoid(pred) > 0.5).float()
    inter = (pred * mask).sum(dim=(1, 2, 3))
    return ((2 * inter + eps) / (pred.sum(dim=(1, 2, 3)) + mask.sum(dim=(1, 2, 3)) + eps)).mean()
