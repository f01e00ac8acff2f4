import numpy as np
import tensorflow as tf
import keras
import horovod.tensorflow.keras as hvd


class RetrievalEval(keras.callbacks.Callback):
    """Every worker embeds its slice of the test list; rank 0 scores the gathered set.

    VehicleID protocol (small split): one random image per vehicle is the gallery,
    the rest are queries.
    """

    def __init__(self, dataset, every=5):
        super().__init__()
        self.dataset, self.every = dataset, every

    def on_epoch_end(self, epoch, logs=None):
        if (epoch + 1) % self.every:
            return
        embs, labels = [], []
        for x, y in self.dataset:
            e, _ = self.model(x, training=False)
            embs.append(tf.math.l2_normalize(e, axis=1))
            labels.append(y)
        e = hvd.allgather(tf.concat(embs, 0), name='eval_emb').numpy()
        y = hvd.allgather(tf.concat(labels, 0), name='eval_lbl').numpy()
        if hvd.rank() != 0:
            return
        rng = np.random.RandomState(0)
        gallery = np.array([rng.choice(np.where(y == v)[0]) for v in np.unique(y)])
        query = np.setdiff1d(np.arange(len(y)), gallery)
        sim = e[query] @ e[gallery].T
        ranked = y[gallery][np.argsort(-sim, axis=1)]
        hits = ranked == y[query][:, None]
        print('\n[VehicleID-800] epoch %d  top1 %.4f  top5 %.4f' % (
            epoch + 1, hits[:, 0].mean(), hits[:, :5].any(1).mean()))
