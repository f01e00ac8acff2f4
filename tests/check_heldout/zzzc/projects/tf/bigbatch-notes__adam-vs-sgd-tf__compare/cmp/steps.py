import tensorflow as tf
import horovod.tensorflow as hvd


def make_train_step(model, optimizer, loss_fn):
    @tf.function
    def train_step(x, y):
        with tf.GradientTape() as tape:
            loss = loss_fn(y, model(x, training=True))
        grads = tape.gradient(loss, model.trainable_variables)
        grads = hvd.grouped_allreduce(grads, op=hvd.Average)
        optimizer.apply_gradients(zip(grads, model.trainable_variables))
        return loss
    return train_step


def sync(model, optimizer):
    """Copy rank 0's weights and optimizer slots everywhere (call once, after build)."""
    hvd.broadcast_variables(model.variables, root_rank=0)
    hvd.broadcast_variables(optimizer.variables, root_rank=0)
