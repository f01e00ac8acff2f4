import tensorflow as tf


def pgd_linf(model, loss_fn, x, y, eps, alpha, steps, rand_init=True):
    x_adv = x + tf.random.uniform(tf.shape(x), -eps, eps) if rand_init else tf.identity(x)
    x_adv = tf.clip_by_value(x_adv, 0.0, 1.0)
    for _ in tf.range(steps):
        with tf.GradientTape() as tape:
            tape.watch(x_adv)
            loss = loss_fn(y, model(x_adv, training=False))
        g = tape.gradient(loss, x_adv)
        x_adv = x_adv + alpha * tf.sign(g)
        x_adv = tf.clip_by_value(tf.clip_by_value(x_adv, x - eps, x + eps), 0.0, 1.0)
    return tf.stop_gradient(x_adv)
