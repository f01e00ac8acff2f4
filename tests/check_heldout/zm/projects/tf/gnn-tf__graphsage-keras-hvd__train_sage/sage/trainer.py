import numpy as np
import tensorflow as tf
import horovod.tensorflow as hvd


class Trainer:
    def __init__(self, model, optimizer, cfg):
        self.model, self.optimizer, self.cfg = model, optimizer, cfg
        self.loss_fn = tf.keras.losses.SparseCategoricalCrossentropy(from_logits=True)

    def train_step(self, feats, fanouts, labels):
        with tf.GradientTape() as tape:
            logits = self.model(feats, fanouts=fanouts, training=True)
            loss = self.loss_fn(labels, logits)
        if self.cfg.distributed:
            tape = hvd.DistributedGradientTape(tape)
        grads = tape.gradient(loss, self.model.trainable_variables)
        self.optimizer.apply_gradients(zip(grads, self.model.trainable_variables))
        return loss

    def evaluate(self, sampler, val_idx, labels, batch_size=2048):
        """Accuracy over the validation nodes this worker owns, then a global sum."""
        mine = np.array_split(val_idx, hvd.size())[hvd.rank()]
        correct = 0
        for i in range(0, len(mine), batch_size):
            feats, fanouts, y = sampler.sample(mine[i:i + batch_size])
            pred = tf.argmax(self.model(feats, fanouts=fanouts), axis=-1).numpy()
            correct += int((pred == y).sum())
        totals = hvd.allreduce(tf.constant([correct, len(mine)], tf.float64), op=hvd.Sum)
        return float(totals[0] / totals[1])
