import tensorflow as tf
import horovod.tensorflow as hvd


def make_train_step(model, optimizer, loss_fn, distributed=True):
    @tf.function
    def train_step(x, y):
        with tf.GradientTape() as tape:
            pred = model(x, training=True)
            loss = loss_fn(y, pred)
        if distributed:
            hvd.DistributedGradientTape(tape)
        grads = tape.gradient(loss, model.trainable_variables)
        grads, _ = tf.clip_by_global_norm(grads, 1.0)
        optimizer.apply_gradients(zip(grads, model.trainable_variables))
        return loss

    return train_step


def make_eval_step(model):
    @tf.function
    def eval_step(x, y):
        pred = model(x, training=False)
        return tf.reduce_sum(tf.abs(pred - y)), tf.cast(tf.size(y), tf.float32)

    return eval_step
