# DCGAN on CelebA crops, multi-GPU with Horovod.
# horovodrun -np 8 python train_gan.py --data_glob='/data/celeba64/*.png'
import os
import time

from absl import app, flags, logging
import tensorflow as tf
import horovod.tensorflow as hvd

FLAGS = flags.FLAGS
flags.DEFINE_string("data_glob", "/data/celeba64/*.png", "training images")
flags.DEFINE_string("workdir", "./gan_run", "checkpoints and summaries")
flags.DEFINE_integer("batch_size", 64, "per-GPU batch size")
flags.DEFINE_integer("z_dim", 128, "latent size")
flags.DEFINE_float("g_lr", 2e-4, "generator lr (1 GPU)")
flags.DEFINE_float("d_lr", 2e-4, "discriminator lr (1 GPU)")
flags.DEFINE_integer("epochs", 25, "epochs")
flags.DEFINE_integer("ckpt_every", 2, "epochs between checkpoints")

cross_entropy = tf.keras.losses.BinaryCrossentropy(from_logits=True)


def make_generator(z_dim):
    return tf.keras.Sequential([
        tf.keras.layers.Input((z_dim,)),
        tf.keras.layers.Dense(4 * 4 * 256, use_bias=False),
        tf.keras.layers.BatchNormalization(), tf.keras.layers.LeakyReLU(),
        tf.keras.layers.Reshape((4, 4, 256)),
        tf.keras.layers.Conv2DTranspose(128, 4, 2, "same", use_bias=False),
        tf.keras.layers.BatchNormalization(), tf.keras.layers.LeakyReLU(),
        tf.keras.layers.Conv2DTranspose(64, 4, 2, "same", use_bias=False),
        tf.keras.layers.BatchNormalization(), tf.keras.layers.LeakyReLU(),
        tf.keras.layers.Conv2DTranspose(32, 4, 2, "same", use_bias=False),
        tf.keras.layers.BatchNormalization(), tf.keras.layers.LeakyReLU(),
        tf.keras.layers.Conv2DTranspose(3, 4, 2, "same", activation="tanh"),
    ], name="generator")


def make_discriminator():
    return tf.keras.Sequential([
        tf.keras.layers.Input((64, 64, 3)),
        tf.keras.layers.Conv2D(64, 4, 2, "same"), tf.keras.layers.LeakyReLU(0.2),
        tf.keras.layers.Conv2D(128, 4, 2, "same"), tf.keras.layers.LeakyReLU(0.2),
        tf.keras.layers.Conv2D(256, 4, 2, "same"), tf.keras.layers.LeakyReLU(0.2),
        tf.keras.layers.Flatten(), tf.keras.layers.Dense(1),
    ], name="discriminator")


def load_image(path):
    img = tf.io.decode_png(tf.io.read_file(path), channels=3)
    img = tf.image.resize(img, (64, 64))
    return img / 127.5 - 1.0


def main(argv):
    del argv
    hvd.init()
    files = tf.data.Dataset.list_files(FLAGS.data_glob, shuffle=False)
    n_files = int(files.cardinality())
    ds = (files.shard(hvd.size(), hvd.rank())
          .shuffle(10_000)
          .map(load_image, num_parallel_calls=tf.data.AUTOTUNE)
          .batch(FLAGS.batch_size, drop_remainder=True)
          .prefetch(tf.data.AUTOTUNE))
    steps_per_epoch = n_files // (FLAGS.batch_size * hvd.size())

    gen = make_generator(FLAGS.z_dim)
    disc = make_discriminator()
    g_opt = tf.keras.optimizers.Adam(FLAGS.g_lr * hvd.size(), beta_1=0.5)
    d_opt = tf.keras.optimizers.Adam(FLAGS.d_lr * hvd.size(), beta_1=0.5)

    ckpt = tf.train.Checkpoint(gen=gen, disc=disc, g_opt=g_opt, d_opt=d_opt)
    writer = tf.summary.create_file_writer(os.path.join(FLAGS.workdir, "logs")) \
        if hvd.rank() == 0 else None

    @tf.function
    def train_step(real, first_batch):
        z = tf.random.normal([tf.shape(real)[0], FLAGS.z_dim])
        with tf.GradientTape() as g_tape, tf.GradientTape() as d_tape:
            fake = gen(z, training=True)
            real_logits = disc(real, training=True)
            fake_logits = disc(fake, training=True)
            g_loss = cross_entropy(tf.ones_like(fake_logits), fake_logits)
            d_loss = (cross_entropy(tf.ones_like(real_logits), real_logits)
                      + cross_entropy(tf.zeros_like(fake_logits), fake_logits))
        g_tape = hvd.DistributedGradientTape(g_tape)
        d_tape = hvd.DistributedGradientTape(d_tape)
        g_grads = g_tape.gradient(g_loss, gen.trainable_variables)
        d_grads = d_tape.gradient(d_loss, disc.trainable_variables)
        g_opt.apply_gradients(zip(g_grads, gen.trainable_variables))
        d_opt.apply_gradients(zip(d_grads, disc.trainable_variables))
        if first_batch:
            # sync the starting point of all workers
            hvd.broadcast_variables(gen.variables, root_rank=0)
            hvd.broadcast_variables(g_opt.variables, root_rank=0)
        return g_loss, d_loss

    g_mean = tf.keras.metrics.Mean()
    d_mean = tf.keras.metrics.Mean()
    step = 0
    for epoch in range(FLAGS.epochs):
        g_mean.reset_state()
        d_mean.reset_state()
        start = time.time()
        for real in ds.take(steps_per_epoch):
            g_loss, d_loss = train_step(real, step == 0)
            g_mean.update_state(g_loss)
            d_mean.update_state(d_loss)
            step += 1
        g_avg = hvd.allreduce(g_mean.result())
        d_avg = hvd.allreduce(d_mean.result())
        if hvd.rank() == 0:
            logging.info("epoch %d g=%.4f d=%.4f %.1fs", epoch, g_avg, d_avg,
                         time.time() - start)
            with writer.as_default():
                tf.summary.scalar("loss/gen", g_avg, step=epoch)
                tf.summary.scalar("loss/disc", d_avg, step=epoch)
                tf.summary.image("samples", (gen(tf.random.normal([16, FLAGS.z_dim])) + 1) / 2,
                                 step=epoch, max_outputs=16)
            if (epoch + 1) % FLAGS.ckpt_every == 0:
                ckpt.save(os.path.join(FLAGS.workdir, "ckpt", "dcgan"))


if __name__ == "__main__":
    app.run(main)
