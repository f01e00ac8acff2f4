import tensorflow as tf
import horovod.tensorflow as hvd


def make_train_step(model, optimizer, distributed=False):
    """Returns a compiled train step. `distributed` wraps the tape for Horovod."""

    @tf.function
    def train_step(x, c):
        with tf.GradientTape() as tape:
            pred = model(x, training=True)
            loss = tf.reduce_mean(tf.reduce_sum(tf.abs(pred - c), axis=-1))
        if distributed:
            tape = hvd.DistributedGradientTape(tape)
        grads = tape.gradient(loss, model.trainable_variables)
        optimizer.apply_gradients(zip(grads, model.trainable_variables))
        return loss

    return train_step


@tf.function
def distance_sum(model, x, c, image_size):
    pred = model(x, training=False)
    d = tf.norm((pred - c) * image_size, axis=-1)  # pixels
    return tf.reduce_sum(d), tf.cast(tf.shape(d)[0], tf.float32)
