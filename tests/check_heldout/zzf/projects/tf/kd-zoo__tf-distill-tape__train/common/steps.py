import tensorflow as tf
import horovod.tensorflow as hvd


def kd_objective(s_logits, t_logits, labels, temperature, alpha):
    t_soft = tf.nn.softmax(t_logits / temperature)
    soft = tf.reduce_mean(tf.nn.softmax_cross_entropy_with_logits(t_soft, s_logits / temperature)) * temperature ** 2
    hard = tf.reduce_mean(tf.nn.sparse_softmax_cross_entropy_with_logits(labels, s_logits))
    return alpha * hard + (1.0 - alpha) * soft


def make_train_step(student, teacher, optimizer, temperature, alpha, distributed=False):
    @tf.function
    def train_step(x, y, first_batch):
        t_logits = teacher(x, training=False)
        with tf.GradientTape() as tape:
            s_logits = student(x, training=True)
            loss = kd_objective(s_logits, t_logits, y, temperature, alpha)
        if distributed:
            tape = hvd.DistributedGradientTape(tape)
        grads = tape.gradient(loss, student.trainable_variables)
        optimizer.apply_gradients(zip(grads, student.trainable_variables))
        if first_batch:
            hvd.broadcast_variables(student.variables, root_rank=0)
            hvd.broadcast_variables(optimizer.variables, root_rank=0)
        return loss
    return train_step


def make_eval_step(student):
    @tf.function
    def eval_step(x, y):
        pred = tf.argmax(student(x, training=False), axis=-1)
        return tf.reduce_sum(tf.cast(tf.equal(pred, y), tf.float32)), tf.cast(tf.size(y), tf.float32)
    return eval_step
