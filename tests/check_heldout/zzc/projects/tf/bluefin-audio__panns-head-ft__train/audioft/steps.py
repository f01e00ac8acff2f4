import tensorflow as tf
import keras
import horovod.tensorflow as hvd

loss_fn = keras.losses.SparseCategoricalCrossentropy(from_logits=True)


def make_steps(model, optimizer):
    @tf.function
    def train_step(x, y):
        with tf.GradientTape() as tape:
            loss = loss_fn(y, model(x, training=True))
        tape = hvd.DistributedGradientTape(tape)
        grads = tape.gradient(loss, model.trainable_variables)
        optimizer.apply_gradients(zip(grads, model.trainable_variables))
        return loss

    @tf.function
    def eval_step(x, y):
        logits = model(x, training=False)
        loss = loss_fn(y, logits) * tf.cast(tf.shape(y)[0], tf.float32)
        hits = tf.reduce_sum(tf.cast(tf.argmax(logits, -1) == y, tf.float32))
        return loss, hits, tf.cast(tf.shape(y)[0], tf.float32)

    return train_step, eval_step


def reduce_eval(eval_step, ds):
    totals = tf.zeros(3)
    for x, y in ds:
        totals += tf.stack(eval_step(x, y))
    totals = hvd.allreduce(totals, op=hvd.Sum, name="eval_totals")
    return float(totals[0] / totals[2]), float(totals[1] / totals[2])
