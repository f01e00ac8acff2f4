import tensorflow as tf
import horovod.tensorflow as hvd

from .losses import triplet_loss


def make_steps(model, optimizer, margin):
    @tf.function
    def warmup_step(x, y):
        """Random-negative warm-up: semi-hard mining collapses embeddings when started from scratch."""
        with tf.GradientTape() as tape:
            loss = triplet_loss(y, model(x, training=True), margin, mining="random")
        grads = tape.gradient(loss, model.trainable_variables)
        optimizer.apply_gradients(zip(grads, model.trainable_variables))
        return loss

    @tf.function
    def train_step(x, y):
        with tf.GradientTape() as tape:
            loss = triplet_loss(y, model(x, training=True), margin, mining="semihard")
        tape = hvd.DistributedGradientTape(tape)
        grads = tape.gradient(loss, model.trainable_variables)
        optimizer.apply_gradients(zip(grads, model.trainable_variables))
        return loss

    return warmup_step, train_step
