# JUWELS Booster scaling study: ResNet-ish model on CIFAR-100 with a custom TF2 loop.
#
#   sbatch -N 1  run.sbatch --scaling strong     (4 ranks)
#   sbatch -N 16 run.sbatch --scaling strong     (64 ranks)
#
# strong: --global-batch is split over the ranks, lr kept
# weak:   --global-batch is the batch of ONE rank, lr multiplied by the number of ranks
import argparse
import os

import numpy as np
import tensorflow as tf
import horovod.tensorflow as hvd

from jutils.env import setup_devices, seed_everything
from jutils.timing import EpochClock, append_row
from jtrain.restore import restore_or_init
from jtrain.trainer import TapeTrainer


parser = argparse.ArgumentParser()
parser.add_argument("--scaling", choices=["strong", "weak"], default="strong")
parser.add_argument("--global-batch", type=int, default=1024)
parser.add_argument("--base-lr", type=float, default=0.4)
parser.add_argument("--epochs", type=int, default=30)
parser.add_argument("--label-smoothing", type=float, default=0.1)
parser.add_argument("--ckpt-dir", default=os.path.join(os.environ.get("SCRATCH", "."), "ckpt_cifar100"))
parser.add_argument("--csv", default="scaling_results.csv")
parser.add_argument("--seed", type=int, default=17)


def make_model(num_classes=100):
    inputs = tf.keras.Input((32, 32, 3))
    x = tf.keras.layers.Conv2D(64, 3, padding="same", activation="relu")(inputs)
    for filters in (64, 128, 256):
        shortcut = tf.keras.layers.Conv2D(filters, 1, strides=2)(x)
        x = tf.keras.layers.Conv2D(filters, 3, strides=2, padding="same", activation="relu")(x)
        x = tf.keras.layers.Conv2D(filters, 3, padding="same")(x)
        x = tf.keras.layers.ReLU()(tf.keras.layers.Add()([x, shortcut]))
    x = tf.keras.layers.GlobalAveragePooling2D()(x)
    return tf.keras.Model(inputs, tf.keras.layers.Dense(num_classes)(x))


def main():
    args = parser.parse_args()
    hvd.init()
    setup_devices(hvd.local_rank())
    seed_everything(args.seed)

    if args.scaling == "strong":
        batch = args.global_batch // hvd.size()
        lr = args.base_lr
    else:
        batch = args.global_batch
        lr = args.base_lr * hvd.size()

    (x, y), (xv, yv) = tf.keras.datasets.cifar100.load_data()
    x, xv = (x / 255.0).astype("float32"), (xv / 255.0).astype("float32")
    y, yv = y.ravel().astype("int32"), yv.ravel().astype("int32")
    steps_per_epoch = len(x) // (batch * hvd.size())
    train_ds = (tf.data.Dataset.from_tensor_slices((x, y))
                .shard(hvd.size(), hvd.rank())
                .shuffle(8192)
                .map(lambda a, b: (tf.image.random_flip_left_right(a), b), tf.data.AUTOTUNE)
                .batch(batch, drop_remainder=True)
                .repeat()
                .prefetch(tf.data.AUTOTUNE))
    val_ds = tf.data.Dataset.from_tensor_slices((xv, yv)).shard(hvd.size(), hvd.rank()).batch(500)

    model = make_model()
    schedule = tf.keras.optimizers.schedules.CosineDecay(lr, decay_steps=steps_per_epoch * args.epochs)
    optimizer = tf.keras.optimizers.SGD(learning_rate=schedule, momentum=0.9, nesterov=True)
    model(tf.zeros((1, 32, 32, 3)))
    optimizer.build(model.trainable_variables)

    ckpt, manager, start_epoch = restore_or_init(model, optimizer, args.ckpt_dir)
    trainer = TapeTrainer(model, optimizer, label_smoothing=args.label_smoothing)

    clock = EpochClock()
    it = iter(train_ds)
    for epoch in range(start_epoch, args.epochs):
        clock.start()
        for _ in range(steps_per_epoch):
            trainer.train_step(*next(it))
        secs = clock.stop()

        local_correct, local_count = 0.0, 0
        for xb, yb in val_ds:
            local_correct += float(trainer.correct(xb, yb))
            local_count += int(yb.shape[0])
        total_correct = hvd.allreduce(tf.constant(local_correct), op=hvd.Sum, name="val_correct")
        val_acc = float(total_correct) / local_count
        train_loss = float(hvd.allreduce(trainer.loss_metric.result(), name="train_loss"))
        trainer.loss_metric.reset_state()

        if hvd.rank() == 0:
            img_s = steps_per_epoch * batch * hvd.size() / secs
            print(f"[{args.scaling} n={hvd.size()}] epoch {epoch} loss {train_loss:.3f} "
                  f"val_acc {val_acc:.4f} {img_s:.0f} img/s", flush=True)
            append_row(args.csv, [args.scaling, hvd.size(), epoch, batch, lr, img_s, val_acc])
            ckpt.epoch.assign(epoch + 1)
            manager.save()


if __name__ == "__main__":
    main()
