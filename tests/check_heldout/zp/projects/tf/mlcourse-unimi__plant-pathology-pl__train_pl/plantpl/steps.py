import tensorflow as tf
import horovod.tensorflow as hvd

bce = tf.keras.losses.BinaryCrossentropy(from_logits=True)


def make_train_step(model, optimizer):
    @tf.function
    def train_step(x, y, first_batch):
        with tf.GradientTape() as tape:
            loss = bce(y, model(x, training=True))
        tape = hvd.DistributedGradientTape(tape)
        grads = tape.gradient(loss, model.trainable_variables)
        optimizer.apply_gradients(zip(grads, model.trainable_variables))
        if first_batch:
            hvd.broadcast_variables(model.variables, root_rank=0)
            hvd.broadcast_variables(optimizer.variables, root_rank=0)
        return loss
    return train_step


def evaluate(model, ds):
    """Micro F1 over the validation shards, summed across workers."""
    tp = fp = fn = 0.0
    for x, y in ds:
        pred = tf.cast(tf.sigmoid(model(x, training=False)) > 0.5, tf.float32)
        y = tf.cast(y, tf.float32)
        tp += float(tf.reduce_sum(pred * y))
        fp += float(tf.reduce_sum(pred * (1 - y)))
        fn += float(tf.reduce_sum((1 - pred) * y))
    tp, fp, fn = hvd.allreduce(tf.constant([tp, fp, fn]), op=hvd.Sum).numpy()
    return 2 * tp / max(2 * tp + fp + fn, 1.0)
