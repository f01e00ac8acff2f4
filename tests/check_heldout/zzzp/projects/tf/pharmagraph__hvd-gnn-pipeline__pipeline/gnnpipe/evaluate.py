import numpy as np
import tensorflow as tf
import horovod.tensorflow as hvd


def roc_auc(y, s):
    order = np.argsort(s, kind="mergesort")
    r = np.empty(len(s))
    r[order] = np.arange(1, len(s) + 1)
    pos = y > 0.5
    npos, nneg = pos.sum(), (~pos).sum()
    if npos == 0 or nneg == 0:
        return float("nan")
    return float((r[pos].sum() - npos * (npos + 1) / 2) / (npos * nneg))


def distributed_auc(model, ds):
    """scores of every worker's share are gathered, AUC computed on the whole split"""
    ys, ss = [], []
    for x, adj, mask, y in ds:
        ss.append(model(x, adj, mask))
        ys.append(y)
    s = tf.concat(ss, 0) if ss else tf.zeros([0])
    y = tf.concat(ys, 0) if ys else tf.zeros([0])
    s_all = hvd.allgather(s, name="auc_scores").numpy()
    y_all = hvd.allgather(y, name="auc_labels").numpy()
    return roc_auc(y_all, s_all)
