# WGAN-GP on 64x64 galaxy images, TF2 + horovod
# usage: horovodrun -np 4 python tf_loop_wgan_gp.py
import os, glob, time
import tensorflow as tf
import horovod.tensorflow as hvd

hvd.init()
gpus = tf.config.list_physical_devices('GPU')
for g in gpus:
    tf.config.experimental.set_memory_growth(g, True)
if gpus:
    tf.config.set_visible_devices(gpus[hvd.local_rank()], 'GPU')

IMG_DIR = os.environ.get('GALAXY_DIR', '/scratch/astro/galaxy_zoo/images')
BATCH = 64
Z = 128
EPOCHS = 50
N_CRITIC = 5
GP_W = 10.0
LR = 1e-4 * hvd.size()
OUT = 'wgan_out'

files = sorted(glob.glob(os.path.join(IMG_DIR, '*.jpg')))


def load_img(path):
    img = tf.io.decode_jpeg(tf.io.read_file(path), channels=3)
    img = tf.image.resize(tf.image.central_crop(img, 0.6), (64, 64))
    return tf.cast(img, tf.float32) / 127.5 - 1.0


dataset = (tf.data.Dataset.from_tensor_slices(files)
           .shuffle(len(files), reshuffle_each_iteration=True)
           .map(load_img, num_parallel_calls=tf.data.AUTOTUNE)
           .batch(BATCH, drop_remainder=True)
           .prefetch(tf.data.AUTOTUNE))

L = tf.keras.layers
generator = tf.keras.Sequential([
    L.Dense(4 * 4 * 512, input_shape=(Z,)), L.Reshape((4, 4, 512)),
    L.Conv2DTranspose(256, 4, 2, 'same'), L.BatchNormalization(), L.ReLU(),
    L.Conv2DTranspose(128, 4, 2, 'same'), L.BatchNormalization(), L.ReLU(),
    L.Conv2DTranspose(64, 4, 2, 'same'), L.BatchNormalization(), L.ReLU(),
    L.Conv2DTranspose(3, 4, 2, 'same', activation='tanh')])
critic = tf.keras.Sequential([
    L.Conv2D(64, 4, 2, 'same', input_shape=(64, 64, 3)), L.LeakyReLU(0.2),
    L.Conv2D(128, 4, 2, 'same'), L.LeakyReLU(0.2),
    L.Conv2D(256, 4, 2, 'same'), L.LeakyReLU(0.2),
    L.Conv2D(512, 4, 2, 'same'), L.LeakyReLU(0.2),
    L.Flatten(), L.Dense(1)])

g_opt = tf.keras.optimizers.Adam(LR, beta_1=0.0, beta_2=0.9)
c_opt = tf.keras.optimizers.Adam(LR, beta_1=0.0, beta_2=0.9)


@tf.function
def critic_step(real):
    z = tf.random.normal([BATCH, Z])
    with tf.GradientTape() as tape:
        fake = generator(z, training=True)
        c_real = critic(real, training=True)
        c_fake = critic(fake, training=True)
        eps = tf.random.uniform([BATCH, 1, 1, 1])
        mix = eps * real + (1 - eps) * fake
        with tf.GradientTape() as gp_tape:
            gp_tape.watch(mix)
            c_mix = critic(mix, training=True)
        g = gp_tape.gradient(c_mix, mix)
        gp = tf.reduce_mean((tf.sqrt(tf.reduce_sum(g ** 2, axis=[1, 2, 3]) + 1e-12) - 1.0) ** 2)
        c_loss = tf.reduce_mean(c_fake) - tf.reduce_mean(c_real) + GP_W * gp
    tape = hvd.DistributedGradientTape(tape)
    grads = tape.gradient(c_loss, critic.trainable_variables)
    c_opt.apply_gradients(zip(grads, critic.trainable_variables))
    return c_loss


@tf.function
def gen_step():
    z = tf.random.normal([BATCH, Z])
    with tf.GradientTape() as tape:
        g_loss = -tf.reduce_mean(critic(generator(z, training=True), training=True))
    tape = hvd.DistributedGradientTape(tape)
    grads = tape.gradient(g_loss, generator.trainable_variables)
    g_opt.apply_gradients(zip(grads, generator.trainable_variables))
    return g_loss


ckpt = tf.train.Checkpoint(generator=generator, critic=critic, g_opt=g_opt, c_opt=c_opt)
os.makedirs(OUT, exist_ok=True)

it = 0
for epoch in range(EPOCHS):
    t0 = time.time()
    c_hist, g_hist = [], []
    for real in dataset:
        c_loss = critic_step(real)
        c_hist.append(float(c_loss))
        if it % N_CRITIC == 0:
            g_loss = gen_step()
            g_hist.append(float(g_loss))
        if it == 0:
            hvd.broadcast_variables(generator.variables, root_rank=0)
            hvd.broadcast_variables(critic.variables, root_rank=0)
            hvd.broadcast_variables(g_opt.variables(), root_rank=0)
            hvd.broadcast_variables(c_opt.variables(), root_rank=0)
        it += 1
    c_mean = hvd.allreduce(tf.reduce_mean(c_hist))
    g_mean = hvd.allreduce(tf.reduce_mean(g_hist))
    if hvd.rank() == 0:
        print(f'epoch {epoch}: critic {float(c_mean):.3f} gen {float(g_mean):.3f} ({time.time()-t0:.0f}s)')
    ckpt.save(os.path.join(OUT, 'ckpt'))
