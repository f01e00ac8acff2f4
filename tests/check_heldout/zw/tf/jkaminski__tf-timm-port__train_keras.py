"""Keras port of my timm fine-tuning recipe, multi-GPU with Horovod.

horovodrun -np 4 -H localhost:4 python train_keras.py --data-dir /data/flowers --model efficientnetv2_b0
"""
import argparse
import math
import os
from dataclasses import dataclass, asdict

import tensorflow as tf
import keras
import horovod.tensorflow.keras as hvd

MODEL_FACTORY = {
    "efficientnetv2_b0": (keras.applications.EfficientNetV2B0, 224),
    "mobilenetv3_large": (keras.applications.MobileNetV3Large, 224),
    "convnext_tiny": (keras.applications.ConvNeXtTiny, 224),
}


@dataclass
class Args:
    data_dir: str = "./data/flowers"
    model: str = "efficientnetv2_b0"
    batch_size: int = 32
    epochs: int = 40
    lr: float = 1e-3
    warmup_epochs: int = 3
    weight_decay: float = 0.05
    label_smoothing: float = 0.1
    output: str = "./output"
    seed: int = 42


def parse_args() -> Args:
    p = argparse.ArgumentParser()
    for name, default in asdict(Args()).items():
        p.add_argument(f"--{name.replace('_', '-')}", type=type(default), default=default)
    return Args(**vars(p.parse_args()))


def make_dataset(directory, img_size, batch_size, training, seed):
    ds = keras.utils.image_dataset_from_directory(directory, image_size=(img_size, img_size), batch_size=None,
                                                  shuffle=False, label_mode="int")
    num_classes, n = len(ds.class_names), int(ds.cardinality())
    ds = ds.shard(hvd.size(), hvd.rank())
    if training:
        ds = ds.shuffle(2048, seed=seed + hvd.rank()).repeat()
        ds = ds.map(lambda x, y: (tf.image.random_flip_left_right(x), y), num_parallel_calls=tf.data.AUTOTUNE)
    ds = ds.batch(batch_size, drop_remainder=training).prefetch(tf.data.AUTOTUNE)
    return ds, num_classes, n


class WarmupCosine(keras.optimizers.schedules.LearningRateSchedule):
    def __init__(self, peak_lr, warmup_steps, total_steps):
        self.peak_lr, self.warmup_steps, self.total_steps = peak_lr, warmup_steps, total_steps

    def __call__(self, step):
        step = tf.cast(step, tf.float32)
        warm = self.peak_lr * (step + 1) / self.warmup_steps
        progress = (step - self.warmup_steps) / max(1, self.total_steps - self.warmup_steps)
        cos = 0.5 * self.peak_lr * (1 + tf.cos(math.pi * tf.minimum(progress, 1.0)))
        return tf.where(step < self.warmup_steps, warm, cos)

    def get_config(self):
        return dict(peak_lr=self.peak_lr, warmup_steps=self.warmup_steps, total_steps=self.total_steps)


def main():
    args = parse_args()
    hvd.init()
    for gpu in tf.config.list_physical_devices("GPU"):
        tf.config.experimental.set_memory_growth(gpu, True)
    is_main = hvd.rank() == 0

    builder, img_size = MODEL_FACTORY[args.model]
    train_ds, num_classes, n_train = make_dataset(os.path.join(args.data_dir, "train"), img_size,
                                                  args.batch_size, True, args.seed)
    val_ds, _, _ = make_dataset(os.path.join(args.data_dir, "val"), img_size, args.batch_size, False, args.seed)
    steps_per_epoch = n_train // (args.batch_size * hvd.size())

    backbone = builder(include_top=False, weights="imagenet", input_shape=(img_size, img_size, 3), pooling="avg")
    inputs = keras.Input((img_size, img_size, 3))
    x = keras.layers.Dropout(0.2)(backbone(inputs))
    model = keras.Model(inputs, keras.layers.Dense(num_classes)(x))

    peak_lr = args.lr * hvd.size()
    schedule = WarmupCosine(peak_lr, args.warmup_epochs * steps_per_epoch, args.epochs * steps_per_epoch)
    opt = hvd.DistributedOptimizer(keras.optimizers.AdamW(learning_rate=schedule, weight_decay=args.weight_decay))
    model.compile(optimizer=opt, metrics=["accuracy"],
                  loss=keras.losses.SparseCategoricalCrossentropy(from_logits=True))

    callbacks = [hvd.callbacks.BroadcastGlobalVariablesCallback(0)]
    if is_main:
        os.makedirs(args.output, exist_ok=True)
        callbacks.append(keras.callbacks.ModelCheckpoint(os.path.join(args.output, "best.keras"),
                                                         monitor="val_accuracy", save_best_only=True))
        callbacks.append(keras.callbacks.TensorBoard(os.path.join(args.output, "tb")))
        print(f"{hvd.size()} workers, {n_train} train images, {steps_per_epoch} steps/epoch, peak lr {peak_lr:.2e}")

    model.fit(train_ds, epochs=args.epochs, steps_per_epoch=steps_per_epoch, validation_data=val_ds,
              callbacks=callbacks, verbose=1 if is_main else 0)

    loss, acc = model.evaluate(val_ds, verbose=0)
    if is_main:
        print(f"final val loss {loss:.4f} acc {acc:.4f}")


if __name__ == "__main__":
    main()
