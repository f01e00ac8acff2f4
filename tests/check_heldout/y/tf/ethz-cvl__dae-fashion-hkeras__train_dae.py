"""Denoising auto-encoder pre-training on Fashion-MNIST (course project -> workshop paper appendix).

Originally written against Keras 2 + horovod.keras; runs on Keras 3 (TF backend) unchanged.
    horovodrun -np 4 python train_dae.py
"""
import os

import numpy as np
import tensorflow as tf
import keras
import horovod.keras as hvd

BATCH_SIZE = 128          # per worker
EPOCHS = 40
BASE_LR = 1e-3
NOISE_STD = 0.3
OUT_DIR = "dae_runs"

hvd.init()

gpus = tf.config.experimental.list_physical_devices("GPU")
for gpu in gpus:
    tf.config.experimental.set_memory_growth(gpu, True)
if gpus:
    tf.config.experimental.set_visible_devices(gpus[hvd.local_rank()], "GPU")

(x_train, _), (x_test, _) = keras.datasets.fashion_mnist.load_data()
x_train = x_train[..., None].astype("float32") / 255.0
x_test = x_test[..., None].astype("float32") / 255.0

# interleaved, equal-sized shards of the training set; the test set is scored by every worker in full
n_used = len(x_train) // hvd.size() * hvd.size()
x_train = x_train[hvd.rank():n_used:hvd.size()]


class NoisyBatches(keras.utils.PyDataset):
    def __init__(self, x, batch_size, std, **kw):
        super().__init__(**kw)
        self.x, self.bs, self.std = x, batch_size, std

    def __len__(self):
        return len(self.x) // self.bs

    def __getitem__(self, i):
        clean = self.x[i * self.bs:(i + 1) * self.bs]
        noisy = np.clip(clean + self.std * np.random.randn(*clean.shape).astype("float32"), 0.0, 1.0)
        return noisy, clean


def build_dae():
    inp = keras.Input((28, 28, 1))
    x = keras.layers.Conv2D(32, 3, strides=2, padding="same", activation="relu")(inp)
    x = keras.layers.Conv2D(64, 3, strides=2, padding="same", activation="relu")(x)
    x = keras.layers.Conv2DTranspose(64, 3, strides=2, padding="same", activation="relu")(x)
    x = keras.layers.Conv2DTranspose(32, 3, strides=2, padding="same", activation="relu")(x)
    out = keras.layers.Conv2D(1, 3, padding="same", activation="sigmoid")(x)
    return keras.Model(inp, out)


model = build_dae()
opt = keras.optimizers.Adam(learning_rate=BASE_LR * hvd.size())
opt = hvd.DistributedOptimizer(opt, compression=hvd.Compression.fp16)
model.compile(optimizer=opt, loss="binary_crossentropy")

train_seq = NoisyBatches(x_train, BATCH_SIZE, NOISE_STD)
rng = np.random.default_rng(0)
x_test_noisy = np.clip(x_test + NOISE_STD * rng.standard_normal(x_test.shape).astype("float32"), 0, 1)

callbacks = [
    hvd.callbacks.BroadcastGlobalVariablesCallback(0),
    hvd.callbacks.MetricAverageCallback(),
    hvd.callbacks.LearningRateWarmupCallback(initial_lr=BASE_LR * hvd.size(), warmup_epochs=3,
                                             steps_per_epoch=len(train_seq)),
]
if hvd.rank() == 0:
    os.makedirs(OUT_DIR, exist_ok=True)
    callbacks.append(keras.callbacks.ModelCheckpoint(os.path.join(OUT_DIR, "dae-{epoch:02d}.keras")))

model.fit(train_seq, epochs=EPOCHS, validation_data=(x_test_noisy, x_test), callbacks=callbacks,
          verbose=1 if hvd.rank() == 0 else 0)

score = model.evaluate(x_test_noisy, x_test, verbose=0)
if hvd.rank() == 0:
    print("test BCE (noisy->clean): %.4f" % score)
