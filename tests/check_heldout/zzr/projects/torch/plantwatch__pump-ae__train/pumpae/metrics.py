import torch


def quantile_threshold(errors, q):
    return torch.quantile(errors.double(), q).item()


def confusion_counts(errors, labels, threshold):
    pred = (errors > threshold).long()
    tp = int(((pred == 1) & (labels == 1)).sum())
    fp = int(((pred == 1) & (labels == 0)).sum())
    fn = int(((pred == 0) & (labels == 1)).sum())
    return [tp, fp, fn]


def prf(tp, fp, fn):
    precision = tp / max(tp + fp, 1)
    recall = tp / max(tp + fn, 1)
    f1 = 2 * precision * recall / max(precision + recall, 1e-12)
    return precision, recall, f1
