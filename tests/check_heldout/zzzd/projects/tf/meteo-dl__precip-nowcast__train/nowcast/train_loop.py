import tensorflow as tf

from . import dist
from .metrics import csi


class NowcastTrainer:
    def __init__(self, model, optimizer, loss_fn=None):
        self.model = model
        self.optimizer = optimizer
        self.loss_fn = loss_fn or tf.keras.losses.MeanAbsoluteError()

    @tf.function
    def train_step(self, x, y):
        with tf.GradientTape() as tape:
            pred = self.model(x, training=True)
            loss = self.loss_fn(y, pred)
        tape = dist.gradient_tape(tape)
        grads = tape.gradient(loss, self.model.trainable_variables)
        self.optimizer.apply_gradients(zip(grads, self.model.trainable_variables))
        return loss

    @tf.function
    def eval_step(self, x, y):
        pred = self.model(x, training=False)
        return self.loss_fn(y, pred), csi(pred, y)

    def fit_epoch(self, ds):
        losses = [float(self.train_step(x, y)) for x, y in ds]
        return dist.mean(sum(losses) / max(len(losses), 1), name="train_loss")

    def evaluate(self, ds):
        loss_sum = csi_sum = 0.0
        n = 0
        for x, y in ds:
            loss, c = self.eval_step(x, y)
            loss_sum, csi_sum, n = loss_sum + float(loss), csi_sum + float(c), n + 1
        return dist.mean(loss_sum / max(n, 1), "val_loss"), dist.mean(csi_sum / max(n, 1), "val_csi")
