import time

import horovod.tensorflow as hvd
import tensorflow as tf

from . import utils, waveforms
from .model import phase_cnn


def main(opts):
    hvd.init()
    utils.pin_gpu(hvd.local_rank())
    rank, size = hvd.rank(), hvd.size()

    # every rank reads the same number of windows from its own part of the file
    x_tr, y_tr = waveforms.load_partition(opts.h5, "train", rank, size)
    x_va, y_va = waveforms.load_partition(opts.h5, "val", rank, size)
    steps = len(y_tr) // opts.batch
    train_ds = (tf.data.Dataset.from_tensor_slices((x_tr, y_tr))
                .shuffle(len(y_tr), seed=1000 + rank)
                .batch(opts.batch, drop_remainder=True))
    val_ds = tf.data.Dataset.from_tensor_slices((x_va, y_va)).batch(256)

    model = phase_cnn(x_tr.shape[1], x_tr.shape[2], n_classes=3)
    opt = tf.keras.optimizers.SGD(learning_rate=opts.lr, momentum=0.9)
    loss_fn = tf.keras.losses.SparseCategoricalCrossentropy()
    utils.sync_initial_state(model)

    @tf.function
    def train_step(x, y):
        with tf.GradientTape() as tape:
            loss = loss_fn(y, model(x, training=True))
        # was: comm.Allreduce(local_grad, global_grad, op=MPI.SUM); the lr was tuned with the sum
        tape = hvd.DistributedGradientTape(tape, op=hvd.Sum)
        grads = tape.gradient(loss, model.trainable_variables)
        opt.apply_gradients(zip(grads, model.trainable_variables))
        return loss

    @tf.function
    def eval_step(x, y):
        p = model(x, training=False)
        n_err = tf.reduce_sum(tf.cast(tf.argmax(p, 1) != tf.cast(y, tf.int64), tf.float32))
        return tf.reduce_sum(tf.keras.losses.sparse_categorical_crossentropy(y, p)), n_err

    for epoch in range(opts.epochs):
        t0 = time.time()
        opt.learning_rate.assign(utils.cosine_lr(epoch, opts.lr, opts.epochs))
        for x, y in train_ds.take(steps):
            train_step(x, y)
        sums = tf.zeros(3)
        for x, y in val_ds:
            l, e = eval_step(x, y)
            sums += tf.stack([l, e, tf.cast(tf.shape(y)[0], tf.float32)])
        val_loss, val_err = utils.global_ratio(sums)
        utils.log(f"epoch {epoch}: val loss {val_loss:.4f}  val error {100 * val_err:.2f}%  "
                  f"({time.time() - t0:.0f}s)")
        utils.save_on_root(model, opts.out, epoch)
