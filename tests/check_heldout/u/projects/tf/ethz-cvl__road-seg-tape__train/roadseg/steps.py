import tensorflow as tf
import horovod.tensorflow as hvd


def weighted_bce(pos_weight):
    def loss_fn(y, logits):
        return tf.reduce_mean(tf.nn.weighted_cross_entropy_with_logits(y, logits, pos_weight))
    return loss_fn


def make_train_step(model, optimizer, loss_fn):
    @tf.function
    def train_step(x, y, first_batch):
        with tf.GradientTape() as tape:
            loss = loss_fn(y, model(x, training=True))
        tape = hvd.DistributedGradientTape(tape)
        grads = tape.gradient(loss, model.trainable_variables)
        optimizer.apply_gradients(zip(grads, model.trainable_variables))
        # sync initial state after the first step, when the optimizer slots exist
        if first_batch:
            hvd.broadcast_variables(model.variables, root_rank=0)
            hvd.broadcast_variables(optimizer.variables, root_rank=0)
        return loss
    return train_step


@tf.function
def iou_step(model, x, y):
    pred = tf.cast(model(x, training=False) > 0.0, tf.float32)
    inter = tf.reduce_sum(pred * y)
    union = tf.reduce_sum(tf.maximum(pred, y))
    return inter / (union + 1e-6)
