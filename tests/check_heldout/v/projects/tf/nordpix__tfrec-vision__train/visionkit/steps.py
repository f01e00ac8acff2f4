"""tf.function step factories shared by the training and the evaluation jobs."""
import horovod.tensorflow as hvd
import tensorflow as tf


def make_train_step(model, optimizer, loss_fn):
    @tf.function
    def train_step(images, labels, first_batch):
        with tf.GradientTape() as tape:
            logits = model(images, training=True)
            loss = loss_fn(labels, logits)
        tape = hvd.DistributedGradientTape(tape)
        grads = tape.gradient(loss, model.trainable_variables)
        optimizer.apply_gradients(zip(grads, model.trainable_variables))
        if first_batch:
            hvd.broadcast_variables(model.variables, root_rank=0)
            hvd.broadcast_variables(optimizer.variables, root_rank=0)
        return loss

    return train_step


def make_eval_step(model, metric):
    @tf.function
    def eval_step(images, labels):
        metric.update_state(labels, model(images, training=False))

    return eval_step
