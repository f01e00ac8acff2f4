import tensorflow as tf
import horovod.tensorflow as hvd


def horizon_loss(targets, preds, weights):
    """Weighted MAE over forecast horizons; the main horizon usually gets the largest weight."""
    total = 0.0
    for k, w in weights.items():
        total += w * tf.reduce_mean(tf.abs(targets[k] - preds[k]))
    return total


def make_train_step(model, optimizer, weights, clip):
    @tf.function
    def train_step(x, y, first_batch):
        with tf.GradientTape() as tape:
            loss = horizon_loss(y, model(x, training=True), weights)
        tape = hvd.DistributedGradientTape(tape)
        grads = tape.gradient(loss, model.trainable_variables)
        grads, _ = tf.clip_by_global_norm(grads, clip)
        optimizer.apply_gradients(zip(grads, model.trainable_variables))
        if first_batch:
            hvd.broadcast_variables(model.variables, root_rank=0)
            hvd.broadcast_variables(optimizer.variables, root_rank=0)
        return loss
    return train_step
