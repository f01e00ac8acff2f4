import os

import numpy as np
import keras
import horovod.tensorflow.keras as hvd


class ShardedTopK(keras.callbacks.Callback):
    """Top-1 / top-5 accuracy on this worker's slice of the held-out families, combined over workers."""

    def __init__(self, x, y, batch_size=256, every=1):
        super().__init__()
        self.x, self.y, self.bs, self.every = x, y, batch_size, every
        self.history = []

    def on_epoch_end(self, epoch, logs=None):
        if (epoch + 1) % self.every:
            return
        prob = self.model.predict(self.x, batch_size=self.bs, verbose=0)
        top5 = np.argsort(-prob, axis=1)[:, :5]
        c1 = np.float32((top5[:, 0] == self.y).sum())
        c5 = np.float32((top5 == self.y[:, None]).any(axis=1).sum())
        c1 = float(hvd.allreduce(c1, op=hvd.Sum, name="top1_correct"))
        c5 = float(hvd.allreduce(c5, op=hvd.Sum, name="top5_correct"))
        n = float(hvd.allreduce(np.float32(len(self.y)), name="heldout_n"))
        top1, top5 = c1 / n, c5 / n
        self.history.append((epoch + 1, top1, top5))
        if logs is not None:
            logs["heldout_top1"], logs["heldout_top5"] = top1, top5
        if hvd.rank() == 0:
            print(f"  [heldout] epoch {epoch + 1}: top1 {top1:.4f} top5 {top5:.4f}")


class Snapshot(keras.callbacks.Callback):
    """Saves the full model every `every` epochs so long jobs can be restarted from the last snapshot."""

    def __init__(self, out_dir, every=5):
        super().__init__()
        self.out_dir, self.every = out_dir, every

    def on_epoch_end(self, epoch, logs=None):
        if (epoch + 1) % self.every == 0:
            os.makedirs(self.out_dir, exist_ok=True)
            self.model.save(os.path.join(self.out_dir, f"protcnn_e{epoch + 1:03d}.keras"))
