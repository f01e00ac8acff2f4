import tensorflow as tf
import horovod.tensorflow as hvd


def make_train_step(model, optimizer, cfg):
    loss_fn = tf.keras.losses.MeanSquaredError()

    @tf.function
    def train_step(x, y):
        with tf.GradientTape() as tape:
            loss = loss_fn(y, model(x, training=True))
        if cfg.allreduce_grads:
            tape = hvd.DistributedGradientTape(tape)
        grads = tape.gradient(loss, model.trainable_variables)
        grads, _ = tf.clip_by_global_norm(grads, cfg.grad_clip)
        optimizer.apply_gradients(zip(grads, model.trainable_variables))
        return loss

    return train_step
