import numpy as np
import tensorflow as tf
import horovod.tensorflow as hvd


class Trainer:
    def __init__(self, model, optimizer, n_bins, z_max, use_horovod=False):
        self.model, self.opt = model, optimizer
        self.use_horovod = use_horovod
        self.edges = np.linspace(0.0, z_max, n_bins + 1).astype("float32")
        self.centers = tf.constant(0.5 * (self.edges[1:] + self.edges[:-1]))
        self.loss_fn = tf.keras.losses.SparseCategoricalCrossentropy(from_logits=True)

    def _bin(self, z):
        return tf.clip_by_value(tf.cast(z / self.edges[-1] * (len(self.edges) - 1), tf.int32),
                                0, len(self.edges) - 2)

    @tf.function
    def train_step(self, x, z, first_batch):
        with tf.GradientTape() as tape:
            logits = self.model(x, training=True)
            loss = self.loss_fn(self._bin(z), logits)
        if self.use_horovod:
            tape = hvd.DistributedGradientTape(tape)
        grads = tape.gradient(loss, self.model.trainable_variables)
        self.opt.apply_gradients(zip(grads, self.model.trainable_variables))
        if first_batch:
            hvd.broadcast_variables(self.model.variables, root_rank=0)
            hvd.broadcast_variables(self.opt.variables, root_rank=0)
        return loss

    def predict_z(self, ds):
        zp, zs = [], []
        for x, z in ds:
            p = tf.nn.softmax(self.model(x, training=False))
            zp.append(tf.reduce_sum(p * self.centers, axis=1).numpy())
            zs.append(z.numpy())
        return np.concatenate(zp), np.concatenate(zs)
