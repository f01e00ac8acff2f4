import argparse
import os
import time

import tensorflow as tf
import tensorflow_datasets as tfds
import horovod.tensorflow as hvd


class Config:
    def __init__(self, argv=None):
        ap = argparse.ArgumentParser("cifar10 trainer")
        ap.add_argument("--epochs", type=int, default=20)
        ap.add_argument("--batch_size", type=int, default=128)
        ap.add_argument("--lr", type=float, default=0.05)
        ap.add_argument("--seed", type=int, default=1234)
        ap.add_argument("--model_dir", default="models/cifar")
        a = ap.parse_args(argv)
        self.epochs = a.epochs
        self.batch_size = a.batch_size
        self.lr = a.lr
        self.seed = a.seed
        self.model_dir = a.model_dir


def augment(image, label):
    image = tf.image.convert_image_dtype(image, tf.float32)
    image = tf.image.resize_with_crop_or_pad(image, 40, 40)
    image = tf.image.random_crop(image, [32, 32, 3])
    image = tf.image.random_flip_left_right(image)
    return image, label


def simple_cnn(num_classes=10):
    inp = tf.keras.Input((32, 32, 3))
    x = inp
    for f in (64, 128, 256):
        x = tf.keras.layers.Conv2D(f, 3, padding="same", use_bias=False)(x)
        x = tf.keras.layers.BatchNormalization()(x)
        x = tf.keras.layers.ReLU()(x)
        x = tf.keras.layers.MaxPool2D()(x)
    x = tf.keras.layers.GlobalAveragePooling2D()(x)
    out = tf.keras.layers.Dense(num_classes)(x)
    return tf.keras.Model(inp, out)


class Trainer:
    def __init__(self, cfg):
        self.cfg = cfg
        ds, info = tfds.load("cifar10", split="train", as_supervised=True, with_info=True)
        self.num_train = info.splits["train"].num_examples
        # Horovod idiom: every worker shuffles differently and runs 1/size of the steps
        self.steps_per_epoch = self.num_train // (cfg.batch_size * hvd.size())
        self.train_ds = (ds.repeat()
                         .shuffle(10000, seed=cfg.seed + hvd.rank())
                         .map(augment, num_parallel_calls=tf.data.AUTOTUNE)
                         .batch(cfg.batch_size)
                         .prefetch(2))
        self.model = simple_cnn()
        self.opt = tf.keras.optimizers.SGD(cfg.lr * hvd.size(), momentum=0.9, nesterov=True)
        self.loss_obj = tf.keras.losses.SparseCategoricalCrossentropy(from_logits=True)
        self.loss_metric = tf.keras.metrics.Mean(name="loss")
        self.acc_metric = tf.keras.metrics.SparseCategoricalAccuracy(name="acc")

    @tf.function
    def train_step(self, x, y, first):
        with tf.GradientTape() as tape:
            logits = self.model(x, training=True)
            loss = self.loss_obj(y, logits)
        grads = tape.gradient(loss, self.model.trainable_variables)
        # average gradients by hand
        grads = [hvd.allreduce(g, op=hvd.Average) for g in grads]
        self.opt.apply_gradients(zip(grads, self.model.trainable_variables))
        if first:
            hvd.broadcast_variables(self.model.variables, root_rank=0)
            hvd.broadcast_variables(self.opt.variables(), root_rank=0)
        self.loss_metric.update_state(loss)
        self.acc_metric.update_state(y, logits)

    def fit(self):
        it = iter(self.train_ds)
        step = 0
        for epoch in range(self.cfg.epochs):
            start = time.time()
            for _ in range(self.steps_per_epoch):
                x, y = next(it)
                self.train_step(x, y, tf.constant(step == 0))
                step += 1
            loss = hvd.allreduce(self.loss_metric.result())
            acc = hvd.allreduce(self.acc_metric.result())
            if hvd.rank() == 0:
                print("epoch {:3d} loss {:.3f} acc {:.3f} time {:.1f}s".format(
                    epoch + 1, float(loss), float(acc), time.time() - start))
                self.save(epoch)
            self.loss_metric.reset_states()
            self.acc_metric.reset_states()

    def save(self, epoch):
        os.makedirs(self.cfg.model_dir, exist_ok=True)
        self.model.save_weights(os.path.join(self.cfg.model_dir, "weights_%03d.h5" % epoch))


if __name__ == "__main__":
    hvd.init()
    gpus = tf.config.list_physical_devices("GPU")
    if gpus:
        tf.config.experimental.set_memory_growth(gpus[hvd.local_rank()], True)
        tf.config.set_visible_devices(gpus[hvd.local_rank()], "GPU")
    Trainer(Config()).fit()
