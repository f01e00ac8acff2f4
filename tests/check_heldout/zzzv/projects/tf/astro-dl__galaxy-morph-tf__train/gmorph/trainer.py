import tensorflow as tf
import keras
import horovod.tensorflow as hvd


class Trainer(object):
    def __init__(self, model, optimizer, cfg):
        self.model = model
        self.optimizer = optimizer
        self.cfg = cfg
        self.loss_fn = keras.losses.SparseCategoricalCrossentropy(from_logits=True)
        self.train_loss = keras.metrics.Mean(name="train_loss")
        self.train_acc = keras.metrics.SparseCategoricalAccuracy(name="train_acc")
        self.val_loss = keras.metrics.Mean(name="val_loss")
        self.val_acc = keras.metrics.SparseCategoricalAccuracy(name="val_acc")

    @tf.function
    def train_step(self, images, labels, first_batch):
        with tf.GradientTape() as tape:
            logits = self.model(images, training=True)
            loss = self.loss_fn(labels, logits)
        tape = hvd.DistributedGradientTape(tape)
        grads = tape.gradient(loss, self.model.trainable_variables)
        self.optimizer.apply_gradients(zip(grads, self.model.trainable_variables))
        if first_batch:
            hvd.broadcast_variables(self.model.variables, root_rank=0)
            hvd.broadcast_variables(self.optimizer.variables, root_rank=0)
        self.train_loss.update_state(loss)
        self.train_acc.update_state(labels, logits)
        return loss

    @tf.function
    def test_step(self, images, labels):
        logits = self.model(images, training=False)
        self.val_loss.update_state(self.loss_fn(labels, logits))
        self.val_acc.update_state(labels, logits)

    def reset(self):
        for m in (self.train_loss, self.train_acc, self.val_loss, self.val_acc):
            m.reset_state()

    def results(self):
        out = {}
        for m in (self.train_loss, self.train_acc, self.val_loss, self.val_acc):
            out[m.name] = float(hvd.allreduce(m.result(), name=m.name, op=hvd.Average))
        return out
