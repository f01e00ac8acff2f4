import tensorflow as tf
import horovod.tensorflow as hvd


def mse(a, b):
    return tf.reduce_mean(tf.square(a - b))


def make_train_step(model, opt):
    @tf.function
    def train_step(window, first_batch):
        x, y = window[:, 0], window[:, 1]
        with tf.GradientTape() as tape:
            loss = mse(model(x, training=True), y)
        tape = hvd.DistributedGradientTape(tape)
        grads = tape.gradient(loss, model.trainable_variables)
        opt.apply_gradients(zip(grads, model.trainable_variables))
        if first_batch:
            hvd.broadcast_variables(model.variables, root_rank=0)
            hvd.broadcast_variables(opt.variables, root_rank=0)
        return loss
    return train_step


def make_rollout_step(model, opt, n_steps):
    """Stage 2: fine-tune on an autoregressive rollout of n_steps."""
    @tf.function
    def rollout_step(window):
        with tf.GradientTape() as tape:
            state, loss = window[:, 0], 0.0
            for k in range(1, n_steps + 1):
                state = model(state, training=True)
                loss += mse(state, window[:, k]) / n_steps
        grads = tape.gradient(loss, model.trainable_variables)
        grads, _ = tf.clip_by_global_norm(grads, 1.0)
        opt.apply_gradients(zip(grads, model.trainable_variables))
        return loss
    return rollout_step


@tf.function
def eval_step(model, window):
    return mse(model(window[:, 0], training=False), window[:, 1])
