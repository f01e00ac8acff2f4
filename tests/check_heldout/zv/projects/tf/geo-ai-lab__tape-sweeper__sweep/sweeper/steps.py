import tensorflow as tf
import horovod.tensorflow as hvd


def make_train_step(model, optimizer, loss_fn, distributed=False):
    @tf.function
    def train_step(x, y):
        with tf.GradientTape() as tape:
            logits = model(x, training=True)
            loss = loss_fn(y, logits)
        if distributed:
            tape = hvd.DistributedGradientTape(tape)
        grads = tape.gradient(loss, model.trainable_variables)
        optimizer.apply_gradients(zip(grads, model.trainable_variables))
        return loss
    return train_step


def make_eval_step(model):
    @tf.function
    def eval_step(x, y):
        pred = tf.argmax(model(x, training=False), axis=-1, output_type=tf.int64)
        return tf.reduce_sum(tf.cast(tf.equal(pred, y), tf.float32)), tf.cast(tf.size(y), tf.float32)
    return eval_step
