import numpy as np


class StreamSegMetrics:
    """Confusion-matrix metrics accumulated batch by batch."""

    def __init__(self, n_classes, ignore_index=255):
        self.n_classes = n_classes
        self.ignore_index = ignore_index
        self.confusion_matrix = np.zeros((n_classes, n_classes), dtype=np.int64)

    def update(self, label_trues, label_preds):
        for lt, lp in zip(label_trues, label_preds):
            mask = (lt >= 0) & (lt < self.n_classes)
            hist = np.bincount(self.n_classes * lt[mask].astype(int) + lp[mask],
                               minlength=self.n_classes ** 2).reshape(self.n_classes, self.n_classes)
            self.confusion_matrix += hist

    def get_results(self):
        hist = self.confusion_matrix
        acc = np.diag(hist).sum() / max(hist.sum(), 1)
        iu = np.diag(hist) / np.maximum(hist.sum(axis=1) + hist.sum(axis=0) - np.diag(hist), 1)
        return {"Overall Acc": float(acc), "Mean IoU": float(np.nanmean(iu)), "Class IoU": iu.tolist()}

    def reset(self):
        self.confusion_matrix[:] = 0
