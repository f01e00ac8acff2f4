"""Land-cover tile classifier (64x64 RGB tiles, 10 classes).

Config is in .env at the repo root (copy .env.example). Multi-GPU:
    horovodrun -np 4 python train_keras.py
"""
from tiles.env import load_dotenv, env_int, env_float, env_str

load_dotenv()   # must run before tensorflow is imported (log level, visible devices, ...)

import tensorflow as tf
import keras
import horovod.tensorflow.keras as hvd

from tiles.callbacks import make_callbacks
from tiles.data import load_split, make_dataset
from tiles.model import tile_cnn
from tiles.seed import set_seed

hvd.init()
for gpu in tf.config.list_physical_devices("GPU"):
    tf.config.experimental.set_memory_growth(gpu, True)

BATCH = env_int("BATCH_SIZE", 64)
EPOCHS = env_int("EPOCHS", 30)
LR = env_float("LR", 0.01)
DATA = env_str("TILES_NPZ", "data/eurosat_rgb64.npz")
OUT = env_str("OUT_DIR", "out")

set_seed(env_int("SEED", 0))

(x_tr, y_tr), (x_va, y_va) = load_split(DATA)
train_ds = make_dataset(x_tr, y_tr, BATCH, training=True, shard=(hvd.size(), hvd.rank()))
val_ds = make_dataset(x_va, y_va, 256, training=False)

model = tile_cnn(num_classes=int(y_tr.max()) + 1)
opt = keras.optimizers.SGD(learning_rate=LR * hvd.size(), momentum=0.9, nesterov=True)
opt = hvd.DistributedOptimizer(opt)
model.compile(optimizer=opt, loss="sparse_categorical_crossentropy", metrics=["accuracy"])
if hvd.rank() == 0:
    model.summary()

steps = len(x_tr) // (BATCH * hvd.size())
history = model.fit(
    train_ds,
    steps_per_epoch=steps,
    epochs=EPOCHS,
    validation_data=val_ds,
    callbacks=make_callbacks(OUT, base_lr=LR * hvd.size(), steps_per_epoch=steps),
    verbose=1 if hvd.rank() == 0 else 0,
)

if hvd.rank() == 0:
    model.save(f"{OUT}/tiles_final.keras")
    print({k: round(v[-1], 4) for k, v in history.history.items()})
