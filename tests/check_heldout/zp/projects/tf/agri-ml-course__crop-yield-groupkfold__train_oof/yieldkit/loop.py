import tensorflow as tf
import horovod.tensorflow as hvd


def make_step(model, optimizer):
    @tf.function
    def step(x, y):
        with tf.GradientTape() as tape:
            pred = tf.squeeze(model(x, training=True), -1)
            loss = tf.reduce_mean(tf.square(pred - y))
        tape = hvd.DistributedGradientTape(tape)
        grads = tape.gradient(loss, model.trainable_variables)
        optimizer.apply_gradients(zip(grads, model.trainable_variables))
        return loss
    return step


def sse(model, X, y, batch=4096):
    total = 0.0
    for s in range(0, len(X), batch):
        p = tf.squeeze(model(X[s:s + batch], training=False), -1).numpy()
        total += float(((p - y[s:s + batch]) ** 2).sum())
    return total
