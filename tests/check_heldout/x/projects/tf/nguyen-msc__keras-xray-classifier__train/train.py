"""Pneumonia / normal chest X-ray classifier -- MSc project (T. Nguyen), Keras 3 + Horovod.

    horovodrun -np 4 python train.py --data /data/chest_xray --epochs 25
"""
import os

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")

import horovod.tensorflow.keras as hvd  # noqa: E402
import keras  # noqa: E402
import tensorflow as tf  # noqa: E402

from xray.callbacks import make_callbacks  # noqa: E402
from xray.config import parse_args  # noqa: E402
from xray.data import count_images, make_dataset  # noqa: E402
from xray.model import build_model  # noqa: E402

args = parse_args()
hvd.init()

gpus = tf.config.list_physical_devices("GPU")
for gpu in gpus:
    tf.config.experimental.set_memory_growth(gpu, True)
if gpus:
    tf.config.set_visible_devices(gpus[hvd.local_rank()], "GPU")

# different seed per worker, otherwise every GPU draws the same augmentations
keras.utils.set_random_seed(args.seed + hvd.rank())
train_ds = make_dataset(os.path.join(args.data, "train"), args.batch_size, args.img_size,
                        training=True, shard=(hvd.size(), hvd.rank()))
val_ds = make_dataset(os.path.join(args.data, "val"), args.batch_size, args.img_size,
                      training=False, shard=(hvd.size(), hvd.rank()))
n_train = count_images(os.path.join(args.data, "train"))
n_val = count_images(os.path.join(args.data, "val"))
steps_per_epoch = max(1, n_train // (args.batch_size * hvd.size()))
val_steps = max(1, n_val // (args.batch_size * hvd.size()))

model = build_model(args.img_size, dropout=args.dropout)
opt = keras.optimizers.Adam(learning_rate=args.lr * hvd.size())
opt = hvd.DistributedOptimizer(opt)
model.compile(optimizer=opt, loss="binary_crossentropy", metrics=["accuracy"])

callbacks = make_callbacks(args)
# gradual warm-up of the scaled lr (Goyal et al.), as in the Horovod docs
callbacks.append(hvd.callbacks.LearningRateWarmupCallback(warmup_epochs=args.warmup_epochs, verbose=1))

history = model.fit(
    train_ds,
    steps_per_epoch=steps_per_epoch,
    validation_data=val_ds,
    validation_steps=val_steps,
    epochs=args.epochs,
    callbacks=callbacks,
    verbose=2 if hvd.rank() == 0 else 0,
)
if hvd.rank() == 0:
    print("final val accuracy:", history.history["val_accuracy"][-1])
