import tensorflow as tf
import keras
import horovod.tensorflow as hvd


class EnergyForceTrainer:
    def __init__(self, model, optimizer, w_energy=0.01, w_forces=1.0, ema_decay=0.999):
        self.model, self.opt = model, optimizer
        self.w_e, self.w_f = w_energy, w_forces
        self.ema_decay = ema_decay
        self.ema_vars = None
        self._synced = False

    def _predict(self, b):
        pos = b["pos"]
        with tf.GradientTape() as t:
            t.watch(pos)
            e = self.model(b["z"], pos, b["seg"], tf.shape(b["energy"])[0])
        return e, -t.gradient(e, pos)

    @tf.function(reduce_retracing=True)
    def _step(self, b):
        with tf.GradientTape() as tape:
            e, f = self._predict(b)
            loss = self.w_e * tf.reduce_mean(((e - b["energy"]) / b["natoms"]) ** 2) + \
                self.w_f * tf.reduce_mean((f - b["forces"]) ** 2)
        tape = hvd.DistributedGradientTape(tape)
        grads = tape.gradient(loss, self.model.trainable_variables)
        self.opt.apply_gradients(zip(grads, self.model.trainable_variables))
        return loss

    def train_step(self, b):
        loss = self._step(b)
        if not self._synced:
            # weights/slots exist after the first step: take rank 0's
            hvd.broadcast_variables(self.model.variables, root_rank=0)
            hvd.broadcast_variables(self.opt.variables, root_rank=0)
            self.ema_vars = [tf.Variable(v) for v in self.model.trainable_variables]
            self._synced = True
        else:
            for e, v in zip(self.ema_vars, self.model.trainable_variables):
                e.assign(self.ema_decay * e + (1 - self.ema_decay) * v)
        return loss

    @tf.function(reduce_retracing=True)
    def _eval_batch(self, b):
        e, f = self._predict(b)
        return tf.stack([tf.reduce_sum(tf.abs(e - b["energy"]) / b["natoms"]),
                         tf.reduce_sum(tf.abs(f - b["forces"])),
                         tf.cast(tf.size(e), tf.float32), tf.cast(tf.size(f), tf.float32)])

    def evaluate(self, dataset):
        acc = tf.zeros(4)
        for b in dataset:
            acc += self._eval_batch(b)
        acc = hvd.allreduce(acc, op=hvd.Sum, name="eval_acc")
        return {"mae_e_atom": float(acc[0] / acc[2]), "mae_f": float(acc[1] / acc[3])}
