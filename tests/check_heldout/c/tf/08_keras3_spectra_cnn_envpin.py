"""1D CNN classifier for spectra (Keras 3 + Horovod).

Launched with `srun python 08_keras3_spectra_cnn_envpin.py` (one task per GPU) or
`horovodrun -np 4 ...`. The GPU is selected from the launcher's local rank before
TensorFlow is imported, so TF never touches the other GPUs of the node.
"""
import os

_local_rank = (os.environ.get("HOROVOD_LOCAL_RANK")
               or os.environ.get("OMPI_COMM_WORLD_LOCAL_RANK")
               or os.environ.get("SLURM_LOCALID")
               or "0")
os.environ["CUDA_VISIBLE_DEVICES"] = _local_rank
os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")

import numpy as np  # noqa: E402
import tensorflow as tf  # noqa: E402
import keras  # noqa: E402
import horovod.tensorflow.keras as hvd  # noqa: E402

cfg = dict(
    data="data/spectra.npz",
    batch_size=128,
    epochs=60,
    base_lr=1e-3,
    weight_decay=1e-4,
    warmup_epochs=3,
    filters=(32, 64, 128),
    ckpt_dir="checkpoints",
)

hvd.init()
if hvd.local_rank() != int(_local_rank):
    print(f"[rank {hvd.rank()}] warning: launcher local rank {_local_rank} != horovod {hvd.local_rank()}")

data = np.load(cfg["data"])
x_train, y_train = data["x_train"].astype("float32"), data["y_train"]
x_val, y_val = data["x_val"].astype("float32"), data["y_val"]
n_classes = int(y_train.max()) + 1

train_ds = (tf.data.Dataset.from_tensor_slices((x_train[..., None], y_train))
            .shard(hvd.size(), hvd.rank())
            .shuffle(8192, reshuffle_each_iteration=True)
            .batch(cfg["batch_size"], drop_remainder=True)
            .repeat()
            .prefetch(tf.data.AUTOTUNE))
val_ds = tf.data.Dataset.from_tensor_slices((x_val[..., None], y_val)).batch(512)

steps_per_epoch = (len(x_train) // hvd.size()) // cfg["batch_size"]


def build_model(input_len, n_classes, filters):
    inp = keras.Input(shape=(input_len, 1))
    x = inp
    for f in filters:
        x = keras.layers.Conv1D(f, 7, padding="same", activation="relu")(x)
        x = keras.layers.BatchNormalization()(x)
        x = keras.layers.MaxPooling1D(2)(x)
    x = keras.layers.GlobalAveragePooling1D()(x)
    x = keras.layers.Dense(128, activation="relu")(x)
    x = keras.layers.Dropout(0.3)(x)
    out = keras.layers.Dense(n_classes, activation="softmax")(x)
    return keras.Model(inp, out)


def build_optimizer(cfg, steps_per_epoch):
    total = cfg["epochs"] * steps_per_epoch
    warmup = cfg["warmup_epochs"] * steps_per_epoch
    # warm up from the single-worker LR to base_lr * N, then cosine decay
    schedule = keras.optimizers.schedules.CosineDecay(
        initial_learning_rate=cfg["base_lr"],
        decay_steps=total - warmup,
        warmup_target=cfg["base_lr"] * hvd.size(),
        warmup_steps=warmup,
    )
    opt = keras.optimizers.AdamW(learning_rate=schedule, weight_decay=cfg["weight_decay"])
    return hvd.DistributedOptimizer(opt)


model = build_model(x_train.shape[1], n_classes, cfg["filters"])
model.compile(optimizer=build_optimizer(cfg, steps_per_epoch),
              loss="sparse_categorical_crossentropy",
              metrics=["accuracy"])

callbacks = [
    hvd.callbacks.BroadcastGlobalVariablesCallback(0),
    hvd.callbacks.MetricAverageCallback(),
]
if hvd.rank() == 0:
    os.makedirs(cfg["ckpt_dir"], exist_ok=True)
    callbacks += [
        keras.callbacks.ModelCheckpoint(os.path.join(cfg["ckpt_dir"], "epoch_{epoch:03d}.keras")),
        keras.callbacks.CSVLogger(os.path.join(cfg["ckpt_dir"], "train_log.csv")),
    ]

model.fit(train_ds,
          epochs=cfg["epochs"],
          steps_per_epoch=steps_per_epoch,
          validation_data=val_ds,
          callbacks=callbacks,
          verbose=1 if hvd.rank() == 0 else 0)

results = model.evaluate(val_ds, verbose=0, return_dict=True)
if hvd.rank() == 0:
    print("final validation:", results)
