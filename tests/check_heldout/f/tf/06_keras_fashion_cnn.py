# Fashion-MNIST CNN with tf.keras + Horovod, for the GPU nodes (4x V100 each).
# Pinning is done through CUDA_VISIBLE_DEVICES *before* TensorFlow is imported,
# so every process only ever sees its own card.
import os

_local_rank = os.environ.get("OMPI_COMM_WORLD_LOCAL_RANK",
                             os.environ.get("SLURM_LOCALID", "0"))
os.environ["CUDA_VISIBLE_DEVICES"] = _local_rank
os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")

import math
import tensorflow as tf
import horovod.tensorflow.keras as hvd

hvd.init()

EPOCHS = 24
BATCH = 128
BASE_LR = 1e-3
WARMUP = 3
OUTDIR = os.path.join(os.environ.get("SCRATCH", "."), "fashion_run")

(x_train, y_train), (x_test, y_test) = tf.keras.datasets.fashion_mnist.load_data()
x_train = x_train[..., None].astype("float32") / 255.0
x_test = x_test[..., None].astype("float32") / 255.0


def make_ds(x, y, training):
    ds = tf.data.Dataset.from_tensor_slices((x, y))
    ds = ds.shard(num_shards=hvd.size(), index=hvd.rank())
    if training:
        ds = ds.shuffle(10000, reshuffle_each_iteration=True)
    return ds.batch(BATCH).prefetch(tf.data.AUTOTUNE)


train_ds = make_ds(x_train, y_train, True)
val_ds = make_ds(x_test, y_test, False)

model = tf.keras.Sequential([
    tf.keras.layers.Input((28, 28, 1)),
    tf.keras.layers.Conv2D(32, 3, padding="same", activation="relu"),
    tf.keras.layers.Conv2D(32, 3, padding="same", activation="relu"),
    tf.keras.layers.MaxPooling2D(),
    tf.keras.layers.Dropout(0.25),
    tf.keras.layers.Conv2D(64, 3, padding="same", activation="relu"),
    tf.keras.layers.MaxPooling2D(),
    tf.keras.layers.Flatten(),
    tf.keras.layers.Dense(256, activation="relu"),
    tf.keras.layers.Dropout(0.5),
    tf.keras.layers.Dense(10, activation="softmax"),
])

scaled_lr = BASE_LR * hvd.size()
opt = tf.keras.optimizers.Adam(learning_rate=scaled_lr)
opt = hvd.DistributedOptimizer(opt, compression=hvd.Compression.fp16)

model.compile(optimizer=opt,
              loss="sparse_categorical_crossentropy",
              metrics=["accuracy"])


def cosine_after_warmup(epoch, lr):
    if epoch < WARMUP:
        return lr
    t = (epoch - WARMUP) / max(1, EPOCHS - WARMUP)
    return 0.5 * scaled_lr * (1 + math.cos(math.pi * t))


callbacks = [
    hvd.callbacks.BroadcastGlobalVariablesCallback(0),
    hvd.callbacks.MetricAverageCallback(),
    hvd.callbacks.LearningRateWarmupCallback(initial_lr=scaled_lr,
                                             warmup_epochs=WARMUP, verbose=1),
    tf.keras.callbacks.LearningRateScheduler(cosine_after_warmup),
]

if hvd.rank() == 0:
    os.makedirs(OUTDIR, exist_ok=True)
    callbacks += [
        tf.keras.callbacks.ModelCheckpoint(os.path.join(OUTDIR, "ckpt-{epoch:02d}.h5"),
                                           save_weights_only=True),
        tf.keras.callbacks.TensorBoard(log_dir=os.path.join(OUTDIR, "tb")),
        tf.keras.callbacks.CSVLogger(os.path.join(OUTDIR, "history.csv")),
    ]

history = model.fit(train_ds,
                    epochs=EPOCHS,
                    validation_data=val_ds,
                    callbacks=callbacks,
                    verbose=2 if hvd.rank() == 0 else 0)

if hvd.rank() == 0:
    print("final val accuracy: %.4f" % history.history["val_accuracy"][-1])
