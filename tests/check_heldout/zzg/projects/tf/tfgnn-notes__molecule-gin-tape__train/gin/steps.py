import tensorflow as tf
import horovod.tensorflow as hvd

loss_fn = tf.keras.losses.SparseCategoricalCrossentropy(from_logits=True)


def make_train_step(model, enc_opt, head_opt):
    """Encoder and readout head get separate optimizers (the head uses a larger lr)."""

    @tf.function(reduce_retracing=True)
    def train_step(graphs, labels, first_batch):
        with tf.GradientTape(persistent=True) as tape:
            logits = model(graphs, training=True)
            loss = loss_fn(labels, logits)
        dist_tape = hvd.DistributedGradientTape(tape)
        enc_vars = model.encoder.trainable_variables
        head_vars = model.head.trainable_variables
        enc_grads = dist_tape.gradient(loss, enc_vars)
        head_grads = tape.gradient(loss, head_vars)
        enc_opt.apply_gradients(zip(enc_grads, enc_vars))
        head_opt.apply_gradients(zip(head_grads, head_vars))
        del tape
        if first_batch:
            hvd.broadcast_variables(model.variables, root_rank=0)
            hvd.broadcast_variables(enc_opt.variables + head_opt.variables, root_rank=0)
        return loss

    return train_step


def make_eval_step(model):
    @tf.function(reduce_retracing=True)
    def eval_step(graphs, labels):
        logits = model(graphs, training=False)
        pred = tf.cast(tf.argmax(logits, axis=-1), labels.dtype)
        return tf.reduce_sum(tf.cast(pred == labels, tf.float32)), tf.cast(tf.size(labels), tf.float32)

    return eval_step
