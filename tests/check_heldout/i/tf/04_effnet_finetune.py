"""Fine-tune EfficientNetB0 (ImageNet weights) on the herbarium subset.

Phase 1: frozen backbone, train the new head.
Phase 2: unfreeze the top blocks and train with a small learning rate.
"""
import os
import sys

import tensorflow as tf
import horovod.tensorflow.keras as hvd

hvd.init()

gpus = tf.config.list_physical_devices("GPU")
for gpu in gpus:
    tf.config.experimental.set_memory_growth(gpu, True)
if gpus:
    tf.config.set_visible_devices(gpus[hvd.local_rank()], "GPU")

DATA_DIR = os.environ.get("HERB_DIR", "/data/herbarium_subset")
IMG = 224
BATCH = 32
HEAD_EPOCHS = 5
FT_EPOCHS = 15
HEAD_LR = 1e-3
FT_LR = 1e-5
OUT = "effnet_ckpt"
verbose = 1 if hvd.rank() == 0 else 0

train_ds = tf.keras.utils.image_dataset_from_directory(
    os.path.join(DATA_DIR, "train"), image_size=(IMG, IMG), batch_size=None,
    shuffle=True, seed=42)
class_names = train_ds.class_names
val_ds = tf.keras.utils.image_dataset_from_directory(
    os.path.join(DATA_DIR, "val"), image_size=(IMG, IMG), batch_size=BATCH, shuffle=False)

augment = tf.keras.Sequential([
    tf.keras.layers.RandomFlip("horizontal"),
    tf.keras.layers.RandomRotation(0.1),
    tf.keras.layers.RandomZoom(0.1),
])

train_ds = (train_ds.shard(hvd.size(), hvd.rank())
            .shuffle(2048)
            .batch(BATCH)
            .map(lambda x, y: (augment(x, training=True), y), num_parallel_calls=tf.data.AUTOTUNE)
            .prefetch(tf.data.AUTOTUNE))
val_ds = val_ds.prefetch(tf.data.AUTOTUNE)

base = tf.keras.applications.EfficientNetB0(include_top=False, weights="imagenet",
                                            input_shape=(IMG, IMG, 3))
base.trainable = False
inputs = tf.keras.Input((IMG, IMG, 3))
x = base(inputs, training=False)
x = tf.keras.layers.GlobalAveragePooling2D()(x)
x = tf.keras.layers.Dropout(0.3)(x)
outputs = tf.keras.layers.Dense(len(class_names), activation="softmax")(x)
model = tf.keras.Model(inputs, outputs)

opt = hvd.DistributedOptimizer(tf.keras.optimizers.Adam(HEAD_LR * hvd.size()))
model.compile(optimizer=opt, loss="sparse_categorical_crossentropy", metrics=["accuracy"])

os.makedirs(OUT, exist_ok=True)
callbacks = [
    hvd.callbacks.BroadcastGlobalVariablesCallback(0),
    hvd.callbacks.MetricAverageCallback(),
    tf.keras.callbacks.ModelCheckpoint(os.path.join(OUT, "best.keras"), monitor="val_accuracy",
                                       save_best_only=True),
]
if hvd.rank() == 0:
    callbacks.append(tf.keras.callbacks.TensorBoard(log_dir=os.path.join(OUT, "tb")))

print(f"[rank {hvd.rank()}] phase 1: head only", file=sys.stderr)
model.fit(train_ds, validation_data=val_ds, epochs=HEAD_EPOCHS, callbacks=callbacks,
          verbose=verbose)

# ---- phase 2: unfreeze the last 40 layers (BatchNorm stays frozen) ----
base.trainable = True
for layer in base.layers[:-40]:
    layer.trainable = False
for layer in base.layers:
    if isinstance(layer, tf.keras.layers.BatchNormalization):
        layer.trainable = False

ft_opt = hvd.DistributedOptimizer(tf.keras.optimizers.Adam(FT_LR))
model.compile(optimizer=ft_opt, loss="sparse_categorical_crossentropy", metrics=["accuracy"])
print(f"[rank {hvd.rank()}] phase 2: fine-tune", file=sys.stderr)
model.fit(train_ds, validation_data=val_ds, initial_epoch=HEAD_EPOCHS,
          epochs=HEAD_EPOCHS + FT_EPOCHS, callbacks=callbacks, verbose=verbose)

if hvd.rank() == 0:
    model.save(os.path.join(OUT, "final.keras"))
    loss, acc = model.evaluate(val_ds, verbose=0)
    print(f"final val accuracy {acc:.4f}")
