"""Baseline++ (Chen et al., ICLR 2019): pre-train a backbone with a cosine classifier on the
base classes, then evaluate 5-way few-shot episodes on the novel classes with a fresh cosine head.

    horovodrun -np 4 python pretrain.py --data data/mini84.npz --epochs 100
"""
import argparse
import os

import numpy as np
import tensorflow as tf
import keras
from keras import layers, ops
import horovod.tensorflow.keras as hvd


class CosineClassifier(layers.Layer):
    def __init__(self, n_classes, scale=10.0, **kw):
        super().__init__(**kw)
        self.n_classes, self.scale = n_classes, scale

    def build(self, input_shape):
        self.w = self.add_weight(shape=(input_shape[-1], self.n_classes), initializer="glorot_uniform", name="w")

    def call(self, x):
        x = x / (ops.norm(x, axis=-1, keepdims=True) + 1e-8)
        w = self.w / (ops.norm(self.w, axis=0, keepdims=True) + 1e-8)
        return self.scale * ops.matmul(x, w)


def conv4(shape):
    inp = keras.Input(shape)
    h = inp
    for _ in range(4):
        h = layers.Conv2D(64, 3, padding="same", use_bias=False)(h)
        h = layers.BatchNormalization()(h)
        h = layers.ReLU()(h)
        h = layers.MaxPool2D(padding="same")(h)
    return keras.Model(inp, layers.GlobalAveragePooling2D()(h), name="backbone")


def episode_accuracy(backbone, x, y, rng, n_way=5, k_shot=5, n_query=15, steps=100):
    classes = rng.choice(np.unique(y), n_way, replace=False)
    s_idx, q_idx = [], []
    for c in classes:
        idx = rng.choice(np.flatnonzero(y == c), k_shot + n_query, replace=False)
        s_idx.append(idx[:k_shot]); q_idx.append(idx[k_shot:])
    fs = backbone.predict(x[np.concatenate(s_idx)], verbose=0)
    fq = backbone.predict(x[np.concatenate(q_idx)], verbose=0)
    head = keras.Sequential([keras.Input(fs.shape[1:]), CosineClassifier(n_way)])
    head.compile(keras.optimizers.SGD(0.01, momentum=0.9),
                 keras.losses.SparseCategoricalCrossentropy(from_logits=True))
    head.fit(fs, np.repeat(np.arange(n_way), k_shot), batch_size=4, epochs=steps // 7 + 1, verbose=0)
    return float(np.mean(head.predict(fq, verbose=0).argmax(1) == np.repeat(np.arange(n_way), n_query)))


parser = argparse.ArgumentParser()
parser.add_argument("--data", default="data/mini84.npz")
parser.add_argument("--init-from", default=None, help="optional backbone weights (.weights.h5)")
parser.add_argument("--batch-size", type=int, default=16)
parser.add_argument("--lr", type=float, default=1e-3)
parser.add_argument("--epochs", type=int, default=100)
parser.add_argument("--seed", type=int, default=0)
parser.add_argument("--eval-episodes", type=int, default=600)
parser.add_argument("--out", default="checkpoints/baselinepp")
args = parser.parse_args()

hvd.init()
gpus = tf.config.experimental.list_physical_devices("GPU")
for gpu in gpus:
    tf.config.experimental.set_memory_growth(gpu, True)
if gpus:
    tf.config.experimental.set_visible_devices(gpus[hvd.local_rank()], "GPU")
# different augmentation stream on every worker
keras.utils.set_random_seed(args.seed + hvd.rank())

blob = np.load(args.data)
x_base, y_base = blob["x_train"].astype("float32") / 255.0, blob["y_train"]
x_novel, y_novel = blob["x_test"].astype("float32") / 255.0, blob["y_test"]
n_base = int(y_base.max()) + 1

augment = keras.Sequential([layers.RandomFlip("horizontal"), layers.RandomTranslation(0.1, 0.1)])
train_ds = (tf.data.Dataset.from_tensor_slices((x_base, y_base))
            .shard(hvd.size(), hvd.rank())
            .shuffle(10_000)
            .batch(args.batch_size, drop_remainder=True)
            .map(lambda x, y: (augment(x, training=True), y), num_parallel_calls=tf.data.AUTOTUNE)
            .repeat()
            .prefetch(tf.data.AUTOTUNE))
steps_per_epoch = len(y_base) // (args.batch_size * hvd.size())

backbone = conv4(x_base.shape[1:])
if args.init_from:
    # every worker reads the same file, so the workers start from identical weights
    backbone.load_weights(args.init_from)
model = keras.Sequential([backbone, CosineClassifier(n_base)])

opt = keras.optimizers.Adam(learning_rate=args.lr * hvd.size())
model.compile(optimizer=hvd.DistributedOptimizer(opt),
              loss=keras.losses.SparseCategoricalCrossentropy(from_logits=True), metrics=["accuracy"])

callbacks = [hvd.callbacks.MetricAverageCallback()]
if hvd.rank() == 0:
    os.makedirs(args.out, exist_ok=True)
    callbacks.append(keras.callbacks.ModelCheckpoint(os.path.join(args.out, "baselinepp.weights.h5"),
                                                     save_weights_only=True))
model.fit(train_ds, steps_per_epoch=steps_per_epoch, epochs=args.epochs, callbacks=callbacks,
          verbose=2 if hvd.rank() == 0 else 0)

if hvd.rank() == 0:
    rng = np.random.default_rng(1)
    accs = [episode_accuracy(backbone, x_novel, y_novel, rng) for _ in range(args.eval_episodes)]
    print(f"novel 5-way 5-shot: {100 * np.mean(accs):.2f} +- {196 * np.std(accs) / np.sqrt(len(accs)):.2f}")
