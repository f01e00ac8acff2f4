import tensorflow as tf
import horovod.tensorflow as hvd

loss_fn = tf.keras.losses.SparseCategoricalCrossentropy(from_logits=True)


def make_train_step(model, optimizer):
    @tf.function
    def train_step(x, y, first_batch):
        with tf.GradientTape() as tape:
            loss = loss_fn(y, model(x, training=True))
        tape = hvd.DistributedGradientTape(tape)
        grads = tape.gradient(loss, model.trainable_variables)
        optimizer.apply_gradients(zip(grads, model.trainable_variables))
        if first_batch:
            hvd.broadcast_variables(model.variables, root_rank=0)
            hvd.broadcast_variables(optimizer.variables, root_rank=0)
        return loss
    return train_step


def evaluate(model, ds):
    """Mean loss and accuracy over this worker's part of the validation fold."""
    loss_m, acc_m = tf.keras.metrics.Mean(), tf.keras.metrics.SparseCategoricalAccuracy()
    for x, y in ds:
        logits = model(x, training=False)
        loss_m.update_state(loss_fn(y, logits))
        acc_m.update_state(y, logits)
    return float(loss_m.result()), float(acc_m.result())
