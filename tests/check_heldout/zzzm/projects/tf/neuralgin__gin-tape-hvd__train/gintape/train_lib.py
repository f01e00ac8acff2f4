import os

import tensorflow as tf
import horovod.tensorflow as hvd

from gintape.registry import configurable
from gintape.models import build_model
from gintape.data import make_datasets


@configurable
def make_optimizer(name="sgd", base_lr=0.01, momentum=0.9, scale_by_workers=True):
    lr = base_lr * hvd.size() if scale_by_workers else base_lr
    if name == "sgd":
        return tf.keras.optimizers.SGD(lr, momentum=momentum)
    if name == "adam":
        return tf.keras.optimizers.Adam(lr)
    raise ValueError(name)


def _global_mean(total, count):
    s = hvd.allreduce(tf.constant([total, count], tf.float64), op=hvd.Sum, name="mean_sums")
    return float(s[0] / s[1])


@configurable
def train_loop(workdir, epochs=10, batch_size=64, ckpt_every=1):
    train_ds, eval_ds = make_datasets(hvd.rank(), hvd.size(), batch_size)
    model = build_model()
    opt = make_optimizer()
    loss_fn = tf.keras.losses.SparseCategoricalCrossentropy(from_logits=True,
                                                           reduction="sum_over_batch_size")

    ckpt = tf.train.Checkpoint(model=model, optimizer=opt)
    manager = tf.train.CheckpointManager(ckpt, os.path.join(workdir, "ckpt"), max_to_keep=5)

    @tf.function
    def step(x, y, first):
        with tf.GradientTape() as tape:
            loss = loss_fn(y, model(x, training=True))
        tape = hvd.DistributedGradientTape(tape)
        grads = tape.gradient(loss, model.trainable_variables)
        opt.apply_gradients(zip(grads, model.trainable_variables))
        if first:
            hvd.broadcast_variables(model.variables, root_rank=0)
            hvd.broadcast_variables(opt.variables, root_rank=0)
        return loss

    first = True
    for epoch in range(epochs):
        tot, cnt = 0.0, 0.0
        for x, y in train_ds:
            loss = step(x, y, first)
            first = False
            tot += float(loss) * int(x.shape[0])
            cnt += int(x.shape[0])
        train_loss = _global_mean(tot, cnt)

        correct, seen = 0.0, 0.0
        for x, y in eval_ds:
            pred = tf.argmax(model(x, training=False), axis=-1)
            correct += float(tf.reduce_sum(tf.cast(pred == y, tf.float32)))
            seen += int(x.shape[0])
        eval_acc = _global_mean(correct, seen)

        if hvd.rank() == 0:
            print("epoch %d train_loss %.4f eval_acc %.4f" % (epoch, train_loss, eval_acc))
            if (epoch + 1) % ckpt_every == 0:
                manager.save(checkpoint_number=epoch)
