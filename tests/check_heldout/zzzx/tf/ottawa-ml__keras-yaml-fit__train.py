# train.py -- keras model described in a yaml file, horovod data parallel
# usage: horovodrun -np 4 python train.py --cfg experiments/fashion_mlp.yaml
import argparse
import os

import numpy as np
import yaml
import tensorflow as tf
import keras
import horovod.tensorflow.keras as hvd

LAYERS = {
    "dense": keras.layers.Dense,
    "conv2d": keras.layers.Conv2D,
    "maxpool": keras.layers.MaxPooling2D,
    "flatten": keras.layers.Flatten,
    "dropout": keras.layers.Dropout,
    "bn": keras.layers.BatchNormalization,
}
OPTS = {"adam": keras.optimizers.Adam, "sgd": keras.optimizers.SGD, "rmsprop": keras.optimizers.RMSprop}

DEFAULT_CFG = """
input_shape: [28, 28, 1]
layers:
  - {type: conv2d, filters: 32, kernel_size: 3, activation: relu}
  - {type: maxpool}
  - {type: conv2d, filters: 64, kernel_size: 3, activation: relu}
  - {type: maxpool}
  - {type: flatten}
  - {type: dropout, rate: 0.3}
  - {type: dense, units: 10}
optimizer: {type: adam, learning_rate: 0.0005}
batch_size: 128
epochs: 25
"""

parser = argparse.ArgumentParser()
parser.add_argument("--cfg", default=None, help="yaml experiment file (default: built-in)")
parser.add_argument("--data", default="data/fashion_mnist.npz")
parser.add_argument("--out", default="out")
parser.add_argument("--verbose", type=int, default=1)
args = parser.parse_args()

hvd.init()
gpus = tf.config.list_physical_devices("GPU")
for g in gpus:
    tf.config.experimental.set_memory_growth(g, True)
if gpus:
    tf.config.set_visible_devices(gpus[hvd.local_rank()], "GPU")

cfg = yaml.safe_load(open(args.cfg)) if args.cfg else yaml.safe_load(DEFAULT_CFG)


def build(cfg):
    m = keras.Sequential([keras.Input(shape=tuple(cfg["input_shape"]))])
    for spec in cfg["layers"]:
        spec = dict(spec)
        m.add(LAYERS[spec.pop("type")](**spec))
    return m


with np.load(args.data) as f:
    x_train, y_train = f["x_train"], f["y_train"]
    x_test, y_test = f["x_test"], f["y_test"]
x_train = (x_train[..., None] / 255.0).astype("float32")
x_test = (x_test[..., None] / 255.0).astype("float32")

bs = cfg["batch_size"]
train_ds = (tf.data.Dataset.from_tensor_slices((x_train, y_train))
            .shuffle(10000)
            .batch(bs)
            .repeat())
test_ds = tf.data.Dataset.from_tensor_slices((x_test, y_test)).batch(512)

model = build(cfg)
ocfg = dict(cfg["optimizer"])
opt_cls = OPTS[ocfg.pop("type")]
base_lr = ocfg.pop("learning_rate")
scaled_lr = base_lr * hvd.size()
opt = hvd.DistributedOptimizer(opt_cls(learning_rate=scaled_lr, **ocfg))

model.compile(optimizer=opt,
              loss=keras.losses.SparseCategoricalCrossentropy(from_logits=True),
              metrics=["accuracy"])

os.makedirs(args.out, exist_ok=True)
callbacks = [
    hvd.callbacks.BroadcastGlobalVariablesCallback(0),
    hvd.callbacks.MetricAverageCallback(),
    hvd.callbacks.LearningRateWarmupCallback(initial_lr=scaled_lr, warmup_epochs=args.warmup_epochs, verbose=1),
    keras.callbacks.ReduceLROnPlateau(patience=3, factor=0.5),
    keras.callbacks.ModelCheckpoint(os.path.join(args.out, "model-{epoch:02d}.keras")),
]
if hvd.rank() == 0:
    callbacks.append(keras.callbacks.TensorBoard(os.path.join(args.out, "logs")))

model.fit(train_ds,
          steps_per_epoch=len(x_train) // bs,
          epochs=cfg["epochs"],
          validation_data=test_ds,
          callbacks=callbacks,
          verbose=args.verbose if hvd.rank() == 0 else 0)

if hvd.rank() == 0:
    model.save(os.path.join(args.out, "final.keras"))
