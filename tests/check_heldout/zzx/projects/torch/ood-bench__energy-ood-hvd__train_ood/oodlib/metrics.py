import numpy as np
import torch
import horovod.torch as hvd


def global_mean(value, name):
    t = torch.tensor(float(value))
    return hvd.allreduce(t, name, op=hvd.Average).item()


def gather_scores(scores, name):
    return hvd.allgather(torch.as_tensor(scores, dtype=torch.float32), name=name).numpy()


def auroc(in_scores, out_scores):
    """Positives = in-distribution; higher score = more in-distribution."""
    scores = np.concatenate([in_scores, out_scores])
    labels = np.concatenate([np.ones_like(in_scores), np.zeros_like(out_scores)])
    order = np.argsort(-scores)
    labels = labels[order]
    tps, fps = np.cumsum(labels), np.cumsum(1 - labels)
    tpr = np.concatenate([[0.0], tps / max(tps[-1], 1)])
    fpr = np.concatenate([[0.0], fps / max(fps[-1], 1)])
    return float(np.sum(np.diff(fpr) * (tpr[1:] + tpr[:-1]) / 2.0))


def fpr_at_95_tpr(in_scores, out_scores):
    thr = np.percentile(in_scores, 5)
    return float((out_scores >= thr).mean())
