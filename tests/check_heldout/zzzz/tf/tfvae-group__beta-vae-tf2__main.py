"""beta-VAE / controlled-capacity VAE on dSprites, TF2 + horovod.

horovodrun -np 4 python main.py --hparams configs/dsprites.json
"""
import argparse
import time

import tensorflow as tf
import keras
import horovod.tensorflow as hvd

from betavae import hparams
from betavae.input_pipeline import make_train_ds
from betavae.networks import BetaVAE
from betavae.ckpt import Saver
from betavae.viz import save_grid

parser = argparse.ArgumentParser()
parser.add_argument("--hparams", default=None)
parser.add_argument("--objective", choices=["H", "B"], default="B", help="H: beta-VAE, B: capacity annealing")
parser.add_argument("--lr", type=float, default=None)
parser.add_argument("--train-steps", type=int, default=None)
args = parser.parse_args()

hvd.init()
for gpu in tf.config.experimental.list_physical_devices("GPU"):
    tf.config.experimental.set_memory_growth(gpu, True)
gpus = tf.config.experimental.list_physical_devices("GPU")
if gpus:
    tf.config.experimental.set_visible_devices(gpus[hvd.local_rank()], "GPU")

hp = hparams.load(args.hparams, lr=args.lr, train_steps=args.train_steps)

model = BetaVAE(hp.latent_dim)
optimizer = keras.optimizers.Adam(learning_rate=hp.lr)
# linear scaling rule
hp.lr = hp.lr * hvd.size()
global_step = tf.Variable(0, dtype=tf.int64, trainable=False)
saver = Saver(model, optimizer, global_step, hp.ckpt_dir)
saver.restore()


def kl_weight(step):
    # linear warmup of the KL term
    return tf.minimum(1.0, tf.cast(step, tf.float32) / hp.kl_warmup_steps)


@tf.function
def train_step(x, first_batch):
    with tf.GradientTape() as tape:
        rec, kl = model(x, training=True)
        if args.objective == "H":
            loss = tf.reduce_mean(rec + hp.beta * kl_weight(global_step) * kl)
        else:
            c = tf.minimum(hp.capacity_max, hp.capacity_max * tf.cast(global_step, tf.float32) / hp.capacity_steps)
            loss = tf.reduce_mean(rec + hp.beta * tf.abs(kl - c))
    tape = hvd.DistributedGradientTape(tape)
    grads = tape.gradient(loss, model.trainable_variables)
    optimizer.apply_gradients(zip(grads, model.trainable_variables))
    if first_batch:
        hvd.broadcast_variables(model.variables, root_rank=0)
        hvd.broadcast_variables(optimizer.variables, root_rank=0)
    return hvd.allreduce(tf.reduce_mean(rec)), hvd.allreduce(tf.reduce_mean(kl))


ds = make_train_ds(hp)
t0 = time.time()
first = True
for x in ds.take(hp.train_steps // hvd.size()):
    step = int(global_step.numpy())
    rec, kl = train_step(x, first)
    first = False
    global_step.assign_add(1)
    if step % hp.log_every == 0 and hvd.rank() == 0:
        print("step %d rec %.2f kl %.3f lr %g (%.2fs)" % (step, rec, kl, hp.lr, time.time() - t0), flush=True)
        t0 = time.time()
    if step % hp.ckpt_every == 0:
        saver.save(step)
        if hvd.rank() == 0:
            save_grid(model.sample(64).numpy(), "%s/step_%07d.png" % (hp.sample_dir, step))
