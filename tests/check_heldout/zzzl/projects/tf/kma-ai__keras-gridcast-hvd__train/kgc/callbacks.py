import os

import tensorflow as tf
import keras
import horovod.tensorflow as hvd


class BroadcastInitialState(keras.callbacks.Callback):
    """After the first batch (optimizer slots exist by then) copy rank 0's weights and slots."""

    def __init__(self):
        super().__init__()
        self.done = False

    def on_train_batch_end(self, batch, logs=None):
        if self.done:
            return
        hvd.broadcast_variables(self.model.variables, root_rank=0)
        hvd.broadcast_variables(self.model.optimizer.variables, root_rank=0)
        self.done = True


class AverageLogs(keras.callbacks.Callback):
    """Replace every epoch-end log value by its mean over ranks (each rank sees the same
    number of batches) and print one line on rank 0."""

    def on_epoch_end(self, epoch, logs=None):
        if not logs:
            return
        for k in sorted(logs):
            v = tf.constant(float(logs[k]), tf.float32)
            logs[k] = float(hvd.allreduce(v, op=hvd.Average, name="avg_" + k))
        if hvd.rank() == 0:
            print("epoch %d  " % (epoch + 1) + "  ".join("%s %.5f" % (k, logs[k]) for k in sorted(logs)), flush=True)


def rank0_checkpoint(out_dir):
    os.makedirs(out_dir, exist_ok=True)
    return keras.callbacks.ModelCheckpoint(os.path.join(out_dir, "epoch{epoch:03d}.weights.h5"),
                                           save_weights_only=True)


def latest_weights(out_dir):
    if not os.path.isdir(out_dir):
        return None, 0
    files = sorted(f for f in os.listdir(out_dir) if f.startswith("epoch") and f.endswith(".weights.h5"))
    if not files:
        return None, 0
    return os.path.join(out_dir, files[-1]), int(files[-1][5:8])
