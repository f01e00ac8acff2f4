import tensorflow as tf
import horovod.tensorflow as hvd


def make_train_step(model, optimizer):
    @tf.function(reduce_retracing=True)
    def train_step(z, r, seg, idx_i, idx_j, y, first_batch):
        n_mols = tf.shape(y)[0]
        with tf.GradientTape() as tape:
            pred = model(z, r, seg, idx_i, idx_j, n_mols)
            loss = tf.reduce_mean(tf.square(pred - y))
        tape = hvd.DistributedGradientTape(tape)
        grads = tape.gradient(loss, model.trainable_variables)
        optimizer.apply_gradients(zip(grads, model.trainable_variables))
        if first_batch:
            hvd.broadcast_variables(model.variables, root_rank=0)
            hvd.broadcast_variables(optimizer.variables, root_rank=0)
        return loss
    return train_step
