import torch


class MeanIoU:
    """confusion-matrix mIoU, keras Metric style (update_state / result / reset_state)"""

    def __init__(self, num_classes):
        self.num_classes = num_classes
        self.reset_state()

    def reset_state(self):
        self.cm = torch.zeros(self.num_classes, self.num_classes, dtype=torch.float64)

    def update_state(self, logits, target):
        pred = logits.argmax(1).flatten().cpu()
        t = target.flatten().cpu()
        k = t * self.num_classes + pred
        self.cm += torch.bincount(k, minlength=self.num_classes ** 2).reshape(self.num_classes, -1).double()

    def result(self):
        inter = self.cm.diag()
        union = self.cm.sum(0) + self.cm.sum(1) - inter
        iou = inter / union.clamp(min=1)
        return iou.mean().item()


class PixelAccuracy(MeanIoU):
    def result(self):
        return (self.cm.diag().sum() / self.cm.sum().clamp(min=1)).item()
