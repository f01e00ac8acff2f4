import keras
import tensorflow as tf
import horovod.tensorflow as hvd

from .schedule import q_sample


class DiffusionTrainer:
    """eps-prediction DDPM with `accum` micro-batches per update and an EMA copy of the weights.

    Gradients are accumulated locally and applied once per update; the loss is allreduced for
    logging by the caller.
    """

    def __init__(self, model, sched, lr, accum=1, ema_decay=0.999, clip=1.0):
        self.model, self.sched = model, sched
        self.accum, self.ema_decay, self.clip = accum, ema_decay, clip
        self.opt = keras.optimizers.Adam(learning_rate=lr)
        self.ema_model = keras.models.clone_model(model)
        self.acc = None

    def build(self, sample_batch):
        self.model([sample_batch, tf.zeros([tf.shape(sample_batch)[0]], tf.int32)])
        self.ema_model.set_weights(self.model.get_weights())
        self.acc = [tf.Variable(tf.zeros_like(v), trainable=False) for v in self.model.trainable_variables]
        self.opt.build(self.model.trainable_variables)

    def broadcast_initial_state(self):
        hvd.broadcast_variables(self.model.variables, root_rank=0)
        hvd.broadcast_variables(self.ema_model.variables, root_rank=0)

    @tf.function
    def _micro_step(self, x0):
        t = tf.random.uniform([tf.shape(x0)[0]], 0, self.sched["T"], dtype=tf.int32)
        noise = tf.random.normal(tf.shape(x0))
        with tf.GradientTape() as tape:
            pred = self.model([q_sample(self.sched, x0, t, noise), t], training=True)
            loss = tf.reduce_mean(tf.square(pred - noise))
        grads = tape.gradient(loss, self.model.trainable_variables)
        for a, g in zip(self.acc, grads):
            a.assign_add(g / self.accum)
        return loss

    @tf.function
    def _apply(self):
        grads, _ = tf.clip_by_global_norm([a.read_value() for a in self.acc], self.clip)
        self.opt.apply_gradients(zip(grads, self.model.trainable_variables))
        for a in self.acc:
            a.assign(tf.zeros_like(a))
        for e, w in zip(self.ema_model.weights, self.model.weights):
            e.assign(self.ema_decay * e + (1.0 - self.ema_decay) * w)

    def train_step(self, it):
        total = 0.0
        for _ in range(self.accum):
            total += self._micro_step(next(it))
        self._apply()
        return total / self.accum
