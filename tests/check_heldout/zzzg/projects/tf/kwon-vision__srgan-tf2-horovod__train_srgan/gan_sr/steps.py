import horovod.tensorflow as hvd
import keras
import tensorflow as tf

bce = keras.losses.BinaryCrossentropy(from_logits=True)


def make_train_step(gen, disc, vgg, g_opt, d_opt, w):
    def vgg_loss(sr, hr):
        prep = lambda x: keras.applications.vgg19.preprocess_input(x * 255.0)
        return tf.reduce_mean(tf.square(vgg(prep(sr)) / 12.75 - vgg(prep(hr)) / 12.75))

    @tf.function
    def step(lr, hr, first):
        with tf.GradientTape() as gt, tf.GradientTape() as dt:
            sr = gen(lr, training=True)
            real, fake = disc(hr, training=True), disc(sr, training=True)
            g_adv = bce(tf.ones_like(fake), fake)
            g_loss = w["pixel"] * tf.reduce_mean(tf.abs(sr - hr)) + w["vgg"] * vgg_loss(sr, hr) + w["adv"] * g_adv
            d_loss = bce(tf.ones_like(real), real) + bce(tf.zeros_like(fake), fake)
        gt, dt = hvd.DistributedGradientTape(gt), hvd.DistributedGradientTape(dt)
        g_opt.apply_gradients(zip(gt.gradient(g_loss, gen.trainable_variables), gen.trainable_variables))
        d_opt.apply_gradients(zip(dt.gradient(d_loss, disc.trainable_variables), disc.trainable_variables))
        if first:
            # start every worker from rank 0's generator (it carries the pre-trained SRResNet weights)
            hvd.broadcast_variables(gen.variables, root_rank=0)
            hvd.broadcast_variables(g_opt.variables, root_rank=0)
        return g_loss, d_loss

    return step
