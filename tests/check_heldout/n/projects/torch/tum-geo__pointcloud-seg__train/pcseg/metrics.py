import horovod.torch as hvd
import torch


class ConfusionMatrix:
    def __init__(self, num_classes, device):
        self.n = num_classes
        self.mat = torch.zeros(num_classes, num_classes, dtype=torch.float64, device=device)

    def update(self, pred, target):
        k = target * self.n + pred
        self.mat += torch.bincount(k.flatten(), minlength=self.n ** 2).reshape(self.n, self.n).double()

    def reduce(self):
        self.mat = hvd.allreduce(self.mat, name="confmat", op=hvd.Sum)
        return self

    def scores(self):
        tp = self.mat.diag()
        iou = tp / (self.mat.sum(0) + self.mat.sum(1) - tp).clamp_min(1)
        oa = tp.sum() / self.mat.sum().clamp_min(1)
        return {"mIoU": iou.mean().item(), "OA": oa.item(), "IoU": iou.tolist()}
