import tensorflow as tf
import horovod.tensorflow as hvd


def tanimoto_loss(y, logits, eps=1e-5):
    p = tf.sigmoid(logits)
    num = tf.reduce_sum(p * y, axis=[1, 2])
    den = tf.reduce_sum(p * p + y * y, axis=[1, 2]) - num
    return 1.0 - tf.reduce_mean((num + eps) / (den + eps))


class StepRunner:
    def __init__(self, model, optimizer):
        self.model, self.optimizer = model, optimizer

    @tf.function
    def train_step(self, x, y, first_batch):
        with tf.GradientTape() as tape:
            logits = self.model(x, training=True)
            loss = tanimoto_loss(y, logits)
        tape = hvd.DistributedGradientTape(tape)
        grads = tape.gradient(loss, self.model.trainable_variables)
        self.optimizer.apply_gradients(zip(grads, self.model.trainable_variables))
        # after the first update the optimizer slots exist; ship rank 0's weights and slots to everyone
        if first_batch:
            hvd.broadcast_variables(self.model.variables, root_rank=0)
            hvd.broadcast_variables(self.optimizer.variables, root_rank=0)
        return loss

    @tf.function
    def eval_step(self, x, y):
        return tanimoto_loss(y, self.model(x, training=False))
