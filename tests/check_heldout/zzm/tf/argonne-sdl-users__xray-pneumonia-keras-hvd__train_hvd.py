"""Chest X-ray pneumonia classifier, Keras 3 + Horovod.

Our lab's project built on the ALCF "Introduction to Horovod" Keras example (ThetaGPU / Polaris).
Folder layout expected: <data>/{train,val}/{NORMAL,PNEUMONIA}/*.jpeg
"""
import argparse
import os
from datetime import datetime

import tensorflow as tf
import keras
import horovod.tensorflow.keras as hvd

parser = argparse.ArgumentParser()
parser.add_argument("--data", default="/lus/grand/projects/datasets/chest_xray")
parser.add_argument("--img", type=int, default=224)
parser.add_argument("--batch_size", type=int, default=32)
parser.add_argument("--epochs", type=int, default=25)
parser.add_argument("--lr", type=float, default=1e-4)
parser.add_argument("--fine_tune_at", type=int, default=100)
parser.add_argument("--logdir", default="logs")
args = parser.parse_args()

# Horovod: initialize Horovod.
hvd.init()

# Horovod: pin GPU to be used to process local rank (one GPU per process)
gpus = tf.config.experimental.list_physical_devices('GPU')
for gpu in gpus:
    tf.config.experimental.set_memory_growth(gpu, True)
if gpus:
    tf.config.experimental.set_visible_devices(gpus[hvd.local_rank()], 'GPU')

AUTOTUNE = tf.data.AUTOTUNE


def load(split, shuffle):
    ds = keras.utils.image_dataset_from_directory(
        os.path.join(args.data, split),
        image_size=(args.img, args.img),
        batch_size=args.batch_size,
        label_mode="binary",
        shuffle=shuffle,
        seed=1337,
    )
    return ds.cache().prefetch(AUTOTUNE)


train_ds = load("train", shuffle=True)
val_ds = load("val", shuffle=False)

augment = keras.Sequential([
    keras.layers.RandomFlip("horizontal"),
    keras.layers.RandomRotation(0.05),
    keras.layers.RandomZoom(0.1),
])

base = keras.applications.MobileNetV2(input_shape=(args.img, args.img, 3),
                                      include_top=False, weights="imagenet")
base.trainable = True
for layer in base.layers[:args.fine_tune_at]:
    layer.trainable = False

inputs = keras.Input((args.img, args.img, 3))
x = augment(inputs)
x = keras.applications.mobilenet_v2.preprocess_input(x)
x = base(x)
x = keras.layers.GlobalAveragePooling2D()(x)
x = keras.layers.Dropout(0.3)(x)
outputs = keras.layers.Dense(1, activation="sigmoid")(x)
model = keras.Model(inputs, outputs)

# Horovod: adjust learning rate based on number of GPUs.
opt = keras.optimizers.Adam(learning_rate=args.lr * hvd.size())
# Horovod: add Horovod DistributedOptimizer.
opt = hvd.DistributedOptimizer(opt)

model.compile(optimizer=opt,
              loss="binary_crossentropy",
              metrics=["accuracy", keras.metrics.AUC(name="auc")])

callbacks = [
    # Horovod: average metrics among workers at the end of every epoch.
    hvd.callbacks.MetricAverageCallback(),
]

# Horovod: only rank 0 takes care of the model state and the logs
if hvd.rank() == 0:
    run = datetime.now().strftime("%Y%m%d-%H%M%S")
    callbacks += [
        hvd.callbacks.BroadcastGlobalVariablesCallback(0),
        keras.callbacks.ModelCheckpoint(os.path.join(args.logdir, run, "xray-{epoch:02d}.keras")),
        keras.callbacks.TensorBoard(log_dir=os.path.join(args.logdir, run)),
    ]

history = model.fit(train_ds,
                    validation_data=val_ds,
                    epochs=args.epochs,
                    callbacks=callbacks,
                    verbose=1 if hvd.rank() == 0 else 0)

if hvd.rank() == 0:
    loss, acc, auc = model.evaluate(val_ds, verbose=0)
    print(f"final val: loss {loss:.4f} acc {acc:.4f} auc {auc:.4f}")
