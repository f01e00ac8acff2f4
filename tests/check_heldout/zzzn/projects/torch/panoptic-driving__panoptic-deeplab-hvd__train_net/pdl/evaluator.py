import numpy as np
import torch
import horovod.torch as hvd


class SemSegEvaluator:
    def __init__(self, num_classes):
        self.n = num_classes
        self.reset()

    def reset(self):
        self.conf = np.zeros((self.n, self.n), dtype=np.int64)

    def process(self, pred, gt):
        valid = gt < self.n
        self.conf += np.bincount(self.n * gt[valid] + pred[valid], minlength=self.n ** 2).reshape(self.n, self.n)

    def evaluate(self):
        conf = hvd.allreduce(torch.from_numpy(self.conf), op=hvd.Sum, name="sem_conf").numpy()
        tp = np.diag(conf).astype(np.float64)
        iou = tp / np.maximum(conf.sum(0) + conf.sum(1) - tp, 1)
        return {"mIoU": 100 * iou.mean(), "pixAcc": 100 * tp.sum() / max(conf.sum(), 1)}
