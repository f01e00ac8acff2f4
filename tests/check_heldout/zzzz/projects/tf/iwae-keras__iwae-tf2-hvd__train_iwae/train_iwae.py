import os
import time
import numpy as np
import tensorflow as tf
import keras
import horovod.tensorflow as hvd

from iwaetf import settings, hvd_setup
from iwaetf.dataset import load, batches
from iwaetf.model import IWAE
from iwaetf.evaluation import test_loglik

args = settings.get()
rank, size = hvd_setup.setup()

x_tr, x_te = load(args.data, rank, size)
model = IWAE(args.latent)
model.iwae_bound(tf.zeros([1, 784]), 1)  # build

lr = tf.Variable(args.lr * size, trainable=False)
opt = keras.optimizers.Adam(learning_rate=lr, epsilon=1e-4)
compression = hvd.Compression.fp16 if args.use_fp16_allreduce else hvd.Compression.none


@tf.function
def train_step(x, beta):
    with tf.GradientTape() as tape:
        loss = -tf.reduce_mean(model.iwae_bound(x, args.k, beta))
    tape = hvd.DistributedGradientTape(tape, compression=compression)
    grads = tape.gradient(loss, model.trainable_variables)
    opt.apply_gradients(zip(grads, model.trainable_variables))
    return loss


hvd.broadcast_variables(model.variables, root_rank=0)
broadcasted_opt = False
rng = np.random.RandomState(1000 + rank)
ckpt = tf.train.Checkpoint(model=model, opt=opt)

for epoch in range(1, args.epochs + 1):
    beta = 1.0 if args.beta_warmup_epochs == 0 else min(1.0, epoch / args.beta_warmup_epochs)
    t0, losses = time.time(), []
    for xb in batches(x_tr, args.batch_size, rng):
        losses.append(float(train_step(tf.constant(xb), tf.constant(beta, tf.float32))))
        if not broadcasted_opt:
            hvd.broadcast_variables(opt.variables, root_rank=0)
            broadcasted_opt = True
    train_loss = hvd_setup.avg(np.mean(losses))
    if rank == 0:
        print("epoch %d beta %.2f train -IWAE %.3f  %.1fs" % (epoch, beta, train_loss, time.time() - t0), flush=True)
    if epoch % args.test_every == 0:
        ll = hvd_setup.avg(test_loglik(model, x_te, args.k_test))
        if rank == 0:
            print("  test log p(x) %.3f (k=%d)" % (ll, args.k_test), flush=True)
            os.makedirs(args.save_dir, exist_ok=True)
            ckpt.write(os.path.join(args.save_dir, "iwae_k%d" % args.k))
