import tensorflow as tf
from tensorflow import keras
import horovod.tensorflow as hvd

from ecg.model import build_transformer


class Trainer:
    def __init__(self, cfg, lr):
        self.cfg = cfg
        self.model = build_transformer(cfg)
        opt = keras.optimizers.Adam(learning_rate=lr)
        if cfg.mixed_precision:
            opt = keras.mixed_precision.LossScaleOptimizer(opt)
        self.optimizer = opt
        self.loss_fn = keras.losses.SparseCategoricalCrossentropy(from_logits=True)

    @tf.function
    def train_step(self, x, y):
        with tf.GradientTape() as tape:
            logits = self.model(x, training=True)
            loss = self.loss_fn(y, logits)
            scaled = self.optimizer.scale_loss(loss) if self.cfg.mixed_precision else loss
        tape = hvd.DistributedGradientTape(tape)
        grads = tape.gradient(scaled, self.model.trainable_variables)
        self.optimizer.apply_gradients(zip(grads, self.model.trainable_variables))
        return loss

    @tf.function
    def eval_step(self, x, y):
        logits = self.model(x, training=False)
        return self.loss_fn(y, logits), logits
