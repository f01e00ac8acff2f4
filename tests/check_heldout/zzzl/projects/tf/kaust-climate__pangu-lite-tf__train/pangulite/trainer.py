import os

import numpy as np
import tensorflow as tf
import horovod.tensorflow as hvd


def lat_weights(nlat):
    w = np.cos(np.deg2rad(np.linspace(90, -90, nlat)))
    return tf.constant(w / w.mean(), tf.float32)


class PanguTrainer:
    # surface loss weighted x0.25 as in the paper
    SURFACE_WEIGHT = 0.25

    def __init__(self, model, optimizer, nlat, save_dir):
        self.model = model
        self.opt = optimizer
        self.w = lat_weights(nlat)
        self.save_dir = save_dir

    def _loss(self, y_true, y_pred):
        s_t, u_t = y_true
        s_p, u_p = y_pred
        ls = tf.reduce_mean(tf.abs(s_p - s_t) * self.w[None, :, None, None])
        lu = tf.reduce_mean(tf.abs(u_p - u_t) * self.w[None, None, :, None, None])
        return self.SURFACE_WEIGHT * ls + lu

    @tf.function(reduce_retracing=True)
    def step(self, x, y, first_batch):
        with tf.GradientTape() as tape:
            loss = self._loss(y, self.model(x, training=True))
        tape = hvd.DistributedGradientTape(tape, compression=hvd.Compression.fp16)
        grads = tape.gradient(loss, self.model.trainable_variables)
        self.opt.apply_gradients(zip(grads, self.model.trainable_variables))
        if first_batch:
            hvd.broadcast_variables(self.model.variables, root_rank=0)
            hvd.broadcast_variables(self.opt.variables, root_rank=0)
        return loss

    def z500_acc(self, ds, z500_index=(5, 0)):
        """Per-sample ACC of z500 (level 5 of 1000..50 hPa, variable 0 = Z), gathered from all ranks."""
        vals = []
        lev, ch = z500_index
        for x, y in ds:
            _, u_p = self.model(x, training=False)
            a = u_p[:, lev, :, :, ch]
            b = y[1][:, lev, :, :, ch]
            w = self.w[None, :, None]
            acc = tf.reduce_sum(w * a * b, [1, 2]) / tf.sqrt(tf.reduce_sum(w * a * a, [1, 2]) * tf.reduce_sum(w * b * b, [1, 2]))
            vals.extend(acc.numpy().tolist())
        everything = hvd.allgather_object(vals, name="z500_acc")
        return float(np.mean([v for part in everything for v in part]))

    def save(self, step):
        if hvd.rank() != 0:
            return
        os.makedirs(self.save_dir, exist_ok=True)
        self.model.save_weights(os.path.join(self.save_dir, "pangu_%07d.weights.h5" % step))
        with open(os.path.join(self.save_dir, "latest"), "w") as f:
            f.write(str(step))

    def latest_step(self):
        p = os.path.join(self.save_dir, "latest")
        if not os.path.exists(p):
            return 0
        with open(p) as f:
            step = int(f.read().strip())
        self.model.load_weights(os.path.join(self.save_dir, "pangu_%07d.weights.h5" % step))
        return step
