import tensorflow as tf
import horovod.tensorflow as hvd

bce = tf.keras.losses.BinaryCrossentropy(from_logits=True)


def make_train_step(G, D, g_opt, d_opt, noise_dim):
    @tf.function
    def train_step(real):
        z = tf.random.normal([tf.shape(real)[0], noise_dim])
        with tf.GradientTape() as g_tape, tf.GradientTape() as d_tape:
            fake = G(z, training=True)
            real_logits = D(real, training=True)
            fake_logits = D(fake, training=True)
            g_loss = bce(tf.ones_like(fake_logits), fake_logits)
            d_loss = bce(tf.ones_like(real_logits) * 0.9, real_logits) + bce(tf.zeros_like(fake_logits), fake_logits)
        g_tape = hvd.DistributedGradientTape(g_tape)
        d_tape = hvd.DistributedGradientTape(d_tape)
        g_grads = g_tape.gradient(g_loss, G.trainable_variables)
        d_grads = d_tape.gradient(d_loss, D.trainable_variables)
        g_opt.apply_gradients(zip(g_grads, G.trainable_variables))
        d_opt.apply_gradients(zip(d_grads, D.trainable_variables))
        return g_loss, d_loss
    return train_step
