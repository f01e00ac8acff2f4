import numpy as np
import tensorflow as tf
import horovod.tensorflow as hvd


def embed_all(model, ds, tag):
    feats, ids, cams = [], [], []
    for x, (y, c) in ds:
        f, _ = model(x, training=False)
        feats.append(tf.math.l2_normalize(f, 1))
        ids.append(y)
        cams.append(c)
    return [hvd.allgather(tf.concat(v, 0), name=f'{tag}_{i}').numpy() for i, v in enumerate((feats, ids, cams))]


def cmc_map(q, g, topk=(1, 5, 10)):
    (qf, qy, qc), (gf, gy, gc) = q, g
    order = np.argsort(-(qf @ gf.T), axis=1)
    cmc, aps = np.zeros(max(topk)), []
    for i in range(len(qy)):
        o = order[i]
        keep = ~((gy[o] == qy[i]) & (gc[o] == qc[i]))
        m = (gy[o] == qy[i])[keep]
        if not m.any():
            continue
        first = np.argmax(m)
        cmc[first:] += 1 if first < len(cmc) else 0
        aps.append((np.cumsum(m) / np.arange(1, len(m) + 1))[m].mean())
    cmc /= max(len(aps), 1)
    return {f'R{k}': cmc[k - 1] for k in topk}, float(np.mean(aps))
