"""One critic update and one generator update, WGAN-GP (Gulrajani et al. 2017)."""
import tensorflow as tf
import horovod.tensorflow as hvd


def gradient_penalty(critic, real, fake):
    eps = tf.random.uniform([tf.shape(real)[0], 1, 1, 1], 0.0, 1.0)
    mixed = eps * real + (1.0 - eps) * fake
    with tf.GradientTape() as gp_tape:
        gp_tape.watch(mixed)
        score = critic(mixed, training=True)
    grads = gp_tape.gradient(score, mixed)
    norm = tf.sqrt(tf.reduce_sum(tf.square(grads), axis=[1, 2, 3]) + 1e-12)
    return tf.reduce_mean(tf.square(norm - 1.0))


def make_steps(generator, critic, g_opt, d_opt, z_dim, gp_weight=10.0):
    @tf.function
    def critic_step(real):
        z = tf.random.normal([tf.shape(real)[0], z_dim])
        with tf.GradientTape() as tape:
            fake = generator(z, training=True)
            real_score = critic(real, training=True)
            fake_score = critic(fake, training=True)
            w_dist = tf.reduce_mean(real_score) - tf.reduce_mean(fake_score)
            loss = -w_dist + gp_weight * gradient_penalty(critic, real, fake)
        grads = tape.gradient(loss, critic.trainable_variables)
        d_opt.apply_gradients(zip(grads, critic.trainable_variables))
        return loss, w_dist

    @tf.function
    def generator_step(batch_size):
        z = tf.random.normal([batch_size, z_dim])
        with tf.GradientTape() as tape:
            loss = -tf.reduce_mean(critic(generator(z, training=True), training=True))
        tape = hvd.DistributedGradientTape(tape)
        grads = tape.gradient(loss, generator.trainable_variables)
        g_opt.apply_gradients(zip(grads, generator.trainable_variables))
        return loss

    return critic_step, generator_step
