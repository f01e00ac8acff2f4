import tensorflow as tf
import keras
import horovod.tensorflow as hvd

from .nets import build_denoiser


class EDMTrainer:
    def __init__(self, hp, net, opt):
        self.hp = hp
        self.net = net
        self.opt = opt
        self.ema_net = build_denoiser(hp.resolution, hp.channels)
        self.ema_net.set_weights(net.get_weights())
        self.step = 0
        self.accum = [tf.Variable(tf.zeros_like(v), trainable=False) for v in net.trainable_variables]

    def sync_initial_state(self, start_step):
        self.opt.build(self.net.trainable_variables)
        hvd.broadcast_variables(self.net.variables, root_rank=0)
        hvd.broadcast_variables(self.opt.variables, root_rank=0)
        self.ema_net.set_weights(self.net.get_weights()) if start_step == 0 else None
        hvd.broadcast_variables(self.ema_net.variables, root_rank=0)
        self.step = hvd.broadcast_object(start_step, root_rank=0, name="start_step")

    def _precond_loss(self, y):
        hp = self.hp
        n = tf.shape(y)[0]
        sigma = tf.exp(tf.random.normal([n]) * hp.p_std + hp.p_mean)
        s = sigma[:, None, None, None]
        w = (s ** 2 + hp.sigma_data ** 2) / (s * hp.sigma_data) ** 2
        c_skip = hp.sigma_data ** 2 / (s ** 2 + hp.sigma_data ** 2)
        c_out = s * hp.sigma_data / tf.sqrt(s ** 2 + hp.sigma_data ** 2)
        c_in = 1.0 / tf.sqrt(hp.sigma_data ** 2 + s ** 2)
        x = y + tf.random.normal(tf.shape(y)) * s
        D = c_skip * x + c_out * self.net([c_in * x, tf.math.log(sigma) / 4.0], training=True)
        return tf.reduce_mean(w * tf.square(D - y))

    @tf.function
    def _step_single(self, y):
        with tf.GradientTape() as tape:
            loss = self._precond_loss(y)
        tape = hvd.DistributedGradientTape(tape)
        grads = tape.gradient(loss, self.net.trainable_variables)
        self.opt.apply_gradients(zip(grads, self.net.trainable_variables))
        return loss

    @tf.function
    def _step_accum(self, y):
        for a in self.accum:
            a.assign(tf.zeros_like(a))
        total = 0.0
        for micro in tf.split(y, self.hp.grad_accum):
            with tf.GradientTape() as tape:
                loss = self._precond_loss(micro) / self.hp.grad_accum
            grads = tape.gradient(loss, self.net.trainable_variables)
            for a, g in zip(self.accum, grads):
                a.assign_add(g)
            total += loss
        self.opt.apply_gradients(zip([a.read_value() for a in self.accum], self.net.trainable_variables))
        return total

    def _ema(self):
        batch = self.hp.micro_batch * self.hp.grad_accum * hvd.size()
        beta = 0.5 ** (batch / max(self.hp.ema_halflife, 1e-8))
        for e, v in zip(self.ema_net.trainable_variables, self.net.trainable_variables):
            e.assign(beta * e + (1.0 - beta) * v)

    def train_step(self, images):
        if self.hp.grad_accum > 1:
            loss = self._step_accum(images)
        else:
            loss = self._step_single(images)
        self._ema()
        self.step += 1
        return loss
