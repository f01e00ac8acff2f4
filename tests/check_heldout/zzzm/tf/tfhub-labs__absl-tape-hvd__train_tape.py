"""Custom training loop (GradientTape) + Horovod, absl flags.

Example:
  horovodrun -np 2 python train_tape.py --batch_size=128 --lr=0.001 --ckpt_dir=/ckpt/run1
"""
import os
import time

from absl import app, flags, logging
import numpy as np
import tensorflow as tf
import horovod.tensorflow as hvd

flags.DEFINE_integer("batch_size", 128, "per-replica batch size")
flags.DEFINE_integer("epochs", 5, "")
flags.DEFINE_float("lr", 1e-3, "base learning rate (1 worker)")
flags.DEFINE_integer("warmup_steps", 500, "linear warmup, in optimizer steps")
flags.DEFINE_integer("num_examples", 60000, "size of the synthetic/mnist train set")
flags.DEFINE_string("ckpt_dir", "./checkpoints", "where tf.train.Checkpoint writes")
flags.DEFINE_boolean("use_mnist", True, "False: random data (smoke test)")
FLAGS = flags.FLAGS


def load_data():
    if FLAGS.use_mnist:
        (x, y), _ = tf.keras.datasets.mnist.load_data(path="mnist-%d.npz" % hvd.rank())
        x = x[: FLAGS.num_examples]
        y = y[: FLAGS.num_examples]
    else:
        x = np.random.randint(0, 255, size=(FLAGS.num_examples, 28, 28)).astype(np.uint8)
        y = np.random.randint(0, 10, size=(FLAGS.num_examples,))
    x = (x[..., None] / 255.0).astype(np.float32)
    return x, y.astype(np.int64)


def build_model():
    return tf.keras.Sequential([
        tf.keras.layers.Conv2D(32, 3, activation="relu", input_shape=(28, 28, 1)),
        tf.keras.layers.Conv2D(64, 3, activation="relu"),
        tf.keras.layers.MaxPooling2D(),
        tf.keras.layers.Dropout(0.25),
        tf.keras.layers.Flatten(),
        tf.keras.layers.Dense(128, activation="relu"),
        tf.keras.layers.Dense(10),
    ])


class WarmupSchedule(tf.keras.optimizers.schedules.LearningRateSchedule):
    def __init__(self, peak, warmup):
        self.peak = peak
        self.warmup = max(1, warmup)

    def __call__(self, step):
        step = tf.cast(step, tf.float32)
        return self.peak * tf.minimum(1.0, (step + 1.0) / self.warmup)


def main(_):
    hvd.init()
    gpus = tf.config.experimental.list_physical_devices("GPU")
    for g in gpus:
        tf.config.experimental.set_memory_growth(g, True)
    if gpus:
        tf.config.experimental.set_visible_devices(gpus[hvd.local_rank()], "GPU")

    x, y = load_data()
    ds = (tf.data.Dataset.from_tensor_slices((x, y))
          .shard(hvd.size(), hvd.rank())
          .shuffle(10000)
          .batch(FLAGS.batch_size, drop_remainder=True)
          .prefetch(tf.data.AUTOTUNE))
    steps_per_epoch = (len(x) // hvd.size()) // FLAGS.batch_size

    model = build_model()
    loss_fn = tf.keras.losses.SparseCategoricalCrossentropy(from_logits=True)
    warmup = FLAGS.warmup_epochs * steps_per_epoch
    opt = tf.keras.optimizers.Adam(WarmupSchedule(FLAGS.lr * hvd.size(), warmup))

    ckpt = tf.train.Checkpoint(model=model, optimizer=opt)
    manager = tf.train.CheckpointManager(ckpt, FLAGS.ckpt_dir, max_to_keep=3)

    @tf.function
    def train_step(images, labels, first_batch):
        with tf.GradientTape() as tape:
            logits = model(images, training=True)
            loss = loss_fn(labels, logits)
        tape = hvd.DistributedGradientTape(tape)
        grads = tape.gradient(loss, model.trainable_variables)
        opt.apply_gradients(zip(grads, model.trainable_variables))
        # broadcast after the first step so the optimizer slots exist too
        if first_batch:
            hvd.broadcast_variables(model.variables, root_rank=0)
            hvd.broadcast_variables(opt.variables, root_rank=0)
        return loss

    for epoch in range(FLAGS.epochs):
        t0 = time.time()
        total, n = 0.0, 0
        for step, (images, labels) in enumerate(ds, start=1):
            loss = train_step(images, labels, step == 0)
            total += float(loss)
            n += 1
            if step % 100 == 0 and hvd.rank() == 0:
                logging.info("epoch %d step %d loss %.4f", epoch, step, float(loss))
        epoch_loss = hvd.allreduce(tf.constant(total / max(n, 1)), average=True)
        if hvd.rank() == 0:
            logging.info("epoch %d mean loss %.4f (%.1fs)", epoch, float(epoch_loss),
                         time.time() - t0)
        save_path = manager.save(checkpoint_number=epoch)
        logging.info("rank %d saved %s", hvd.rank(), save_path)


if __name__ == "__main__":
    app.run(main)
