# Advanced TensorFlow (SS24) -- capstone: flowers-5 with a custom training loop
# Converted from capstone.ipynb; multi-GPU part added for the HPC bonus task (Horovod).
#   horovodrun -np 4 python train_hvd.py
import os
import time

import numpy as np
import tensorflow as tf
import horovod.tensorflow as hvd

hvd.init()

# -- GPUs ---------------------------------------------------------------------------
gpus = tf.config.experimental.list_physical_devices("GPU")
for gpu in gpus:
    tf.config.experimental.set_memory_growth(gpu, True)
print(f"[rank {hvd.rank()}] visible GPUs: {len(gpus)}")

# -- hyperparameters (from the notebook's grid search, 1 GPU) ------------------------
DATA = os.environ.get("FLOWERS_NPZ", "flowers5_128.npz")
EPOCHS = 20
BATCH = 32
LEARNING_RATE = 1e-3
CKPT_DIR = "./checkpoints"

# -- data ----------------------------------------------------------------------------
data = np.load(DATA)
x_train, y_train = data["x_train"], data["y_train"]
x_val, y_val = data["x_val"], data["y_val"]
STEPS_PER_EPOCH = len(x_train) // (BATCH * hvd.size())   # same number of steps on every worker

train_ds = (tf.data.Dataset.from_tensor_slices((x_train, y_train))
            .shard(hvd.size(), hvd.rank())
            .shuffle(1000)
            .map(lambda x, y: (tf.cast(x, tf.float32) / 255.0, y))
            .batch(BATCH, drop_remainder=True)
            .take(STEPS_PER_EPOCH)
            .prefetch(tf.data.AUTOTUNE))
val_ds = (tf.data.Dataset.from_tensor_slices((x_val, y_val))
          .shard(hvd.size(), hvd.rank())
          .map(lambda x, y: (tf.cast(x, tf.float32) / 255.0, y))
          .batch(BATCH))

# -- model -----------------------------------------------------------------------------
def make_model(num_classes=5):
    inputs = tf.keras.Input(shape=x_train.shape[1:])
    x = tf.keras.layers.RandomFlip("horizontal")(inputs)
    for f in (32, 64, 128):
        x = tf.keras.layers.Conv2D(f, 3, padding="same", activation="relu")(x)
        x = tf.keras.layers.MaxPooling2D()(x)
    x = tf.keras.layers.GlobalAveragePooling2D()(x)
    x = tf.keras.layers.Dropout(0.2)(x)
    outputs = tf.keras.layers.Dense(num_classes)(x)
    return tf.keras.Model(inputs, outputs)


model = make_model()
loss_fn = tf.keras.losses.SparseCategoricalCrossentropy(from_logits=True)
optimizer = tf.keras.optimizers.Adam(learning_rate=LEARNING_RATE)

train_loss = tf.keras.metrics.Mean(name="train_loss")
train_acc = tf.keras.metrics.SparseCategoricalAccuracy(name="train_acc")
val_loss = tf.keras.metrics.Mean(name="val_loss")
val_acc = tf.keras.metrics.SparseCategoricalAccuracy(name="val_acc")


@tf.function
def train_step(images, labels, first_batch):
    with tf.GradientTape() as tape:
        logits = model(images, training=True)
        loss = loss_fn(labels, logits)
    tape = hvd.DistributedGradientTape(tape)
    grads = tape.gradient(loss, model.trainable_variables)
    optimizer.apply_gradients(zip(grads, model.trainable_variables))
    # broadcast after the first step so that the optimizer slots exist too
    if first_batch:
        hvd.broadcast_variables(model.variables, root_rank=0)
        hvd.broadcast_variables(optimizer.variables, root_rank=0)
    train_loss.update_state(loss)
    train_acc.update_state(labels, logits)


@tf.function
def val_step(images, labels):
    logits = model(images, training=False)
    val_loss.update_state(loss_fn(labels, logits))
    val_acc.update_state(labels, logits)


# -- training loop -------------------------------------------------------------------
best_val = 0.0
first = True
for epoch in range(EPOCHS):
    start = time.time()
    for m in (train_loss, train_acc, val_loss, val_acc):
        m.reset_state()
    for images, labels in train_ds:
        train_step(images, labels, first)
        first = False
    for images, labels in val_ds:
        val_step(images, labels)

    if hvd.rank() == 0:
        print(f"Epoch {epoch + 1}/{EPOCHS} - {time.time() - start:.1f}s - "
              f"loss {train_loss.result():.4f} acc {train_acc.result():.4f} - "
              f"val_loss {val_loss.result():.4f} val_acc {val_acc.result():.4f}")
        if val_acc.result() > best_val:
            best_val = float(val_acc.result())
            os.makedirs(CKPT_DIR, exist_ok=True)
            model.save_weights(os.path.join(CKPT_DIR, "best.weights.h5"))

if hvd.rank() == 0:
    model.save(os.path.join(CKPT_DIR, "final.keras"))
    print("best val_acc:", best_val)
