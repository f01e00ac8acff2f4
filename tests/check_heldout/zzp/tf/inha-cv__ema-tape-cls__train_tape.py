"""Custom-loop trainer (tf.GradientTape) with EMA weights, SGDR and Horovod.

    horovodrun -np 8 python train_tape.py --dataset cifar10 --epochs 150
"""
import argparse
import os
import time

import numpy as np
import tensorflow as tf
import horovod.tensorflow as hvd


def get_args():
    p = argparse.ArgumentParser()
    p.add_argument("--dataset", choices=["cifar10", "cifar100"], default="cifar10")
    p.add_argument("--epochs", type=int, default=150)
    p.add_argument("--batch-size", type=int, default=128, help="per GPU")
    p.add_argument("--lr", type=float, default=0.1, help="lr for a single GPU")
    p.add_argument("--first-decay-epochs", type=int, default=10)
    p.add_argument("--ema-decay", type=float, default=0.999)
    p.add_argument("--exp-root", default="exps")
    return p.parse_args()


def load_data(name):
    ds = getattr(tf.keras.datasets, name)
    (x, y), (xt, yt) = ds.load_data()
    mean, std = x.mean(axis=(0, 1, 2)) / 255.0, x.std(axis=(0, 1, 2)) / 255.0
    x = ((x / 255.0 - mean) / std).astype(np.float32)
    xt = ((xt / 255.0 - mean) / std).astype(np.float32)
    return (x, y.ravel().astype(np.int64)), (xt, yt.ravel().astype(np.int64)), int(y.max()) + 1


def build_model(num_classes):
    reg = tf.keras.regularizers.l2(5e-4)
    m = tf.keras.Sequential([tf.keras.Input((32, 32, 3))])
    for filters in (64, 128, 256):
        m.add(tf.keras.layers.Conv2D(filters, 3, padding="same", kernel_regularizer=reg))
        m.add(tf.keras.layers.BatchNormalization())
        m.add(tf.keras.layers.ReLU())
        m.add(tf.keras.layers.MaxPool2D())
    m.add(tf.keras.layers.GlobalAveragePooling2D())
    m.add(tf.keras.layers.Dense(num_classes))
    return m


class EMA:
    def __init__(self, model, decay):
        self.decay = decay
        self.shadow = [tf.Variable(w, trainable=False) for w in model.weights]

    def update(self, model):
        for s, w in zip(self.shadow, model.weights):
            s.assign(self.decay * s + (1.0 - self.decay) * w)

    def swap(self, model):
        for s, w in zip(self.shadow, model.weights):
            tmp = tf.identity(w)
            w.assign(s)
            s.assign(tmp)


def main():
    args = get_args()
    hvd.init()
    gpus = tf.config.list_physical_devices("GPU")
    if gpus:
        tf.config.set_visible_devices(gpus[hvd.local_rank()], "GPU")
        tf.config.experimental.set_memory_growth(gpus[hvd.local_rank()], True)

    (x, y), (xt, yt), num_classes = load_data(args.dataset)
    steps_per_epoch = len(x) // hvd.size() // args.batch_size
    train_ds = (tf.data.Dataset.from_tensor_slices((x, y))
                .shard(hvd.size(), hvd.rank())
                .shuffle(10000)
                .map(lambda a, b: (tf.image.random_flip_left_right(a), b))
                .batch(args.batch_size, drop_remainder=True)
                .prefetch(tf.data.AUTOTUNE))
    test_ds = tf.data.Dataset.from_tensor_slices((xt, yt)).batch(1000)

    model = build_model(num_classes)
    scaled_lr = args.lr * hvd.size()
    schedule = tf.keras.optimizers.schedules.CosineDecayRestarts(
        initial_learning_rate=args.lr, first_decay_steps=args.first_decay_epochs * steps_per_epoch, t_mul=2.0)
    opt = tf.keras.optimizers.SGD(learning_rate=schedule, momentum=0.9)
    loss_fn = tf.keras.losses.SparseCategoricalCrossentropy(from_logits=True)
    ema = EMA(model, args.ema_decay)

    @tf.function
    def train_step(images, labels, first_batch):
        with tf.GradientTape() as tape:
            logits = model(images, training=True)
            loss = loss_fn(labels, logits) + tf.add_n(model.losses)
        tape = hvd.DistributedGradientTape(tape)
        grads = tape.gradient(loss, model.trainable_variables)
        opt.apply_gradients(zip(grads, model.trainable_variables))
        if first_batch:
            hvd.broadcast_variables(model.variables, root_rank=0)
            hvd.broadcast_variables(opt.variables, root_rank=0)
        return loss

    @tf.function
    def predict(images):
        return tf.argmax(model(images, training=False), axis=1)

    exp_dir = os.path.join(args.exp_root, f"{args.dataset}_{time.strftime('%Y%m%d-%H%M%S')}_np{hvd.size()}")
    if hvd.rank() == 0:
        os.makedirs(exp_dir, exist_ok=True)
        print(f"global batch {args.batch_size * hvd.size()}, lr {scaled_lr}, logging to {exp_dir}")
    best = 0.0
    for epoch in range(args.epochs):
        for step, (images, labels) in enumerate(train_ds.take(steps_per_epoch)):
            loss = train_step(images, labels, epoch == 0 and step == 0)
            if epoch == 0 and step == 0:
                ema = EMA(model, args.ema_decay)
            ema.update(model)
        if hvd.rank() != 0:
            continue
        ema.swap(model)
        acc = np.mean(np.concatenate([predict(a).numpy() == b for a, b in test_ds]))
        ema.swap(model)
        print(f"epoch {epoch:3d} loss {float(loss):.4f} ema top1 {acc:.4f}")
        if acc > best:
            best = acc
            model.save_weights(os.path.join(exp_dir, "ema_best.weights.h5"))


if __name__ == "__main__":
    main()
