import math
import os

import horovod.tensorflow.keras as hvd
import keras
import tensorflow as tf

from gpt_tiny.config import get_config
from gpt_tiny.data import make_dataset
from gpt_tiny.model import build_gpt
from gpt_tiny.schedule import WarmupCosine

hvd.init()
for gpu in tf.config.list_physical_devices("GPU"):
    tf.config.experimental.set_memory_growth(gpu, True)
gpus = tf.config.list_physical_devices("GPU")
if gpus:
    tf.config.set_visible_devices(gpus[hvd.local_rank()], "GPU")

cfg = get_config()
train_ds, steps = make_dataset(cfg["tokens"], cfg["seq_len"], cfg["batch_size"], hvd.rank(), hvd.size())
val_ds, val_steps = make_dataset(cfg["val_tokens"], cfg["seq_len"], cfg["batch_size"],
                                 hvd.rank(), hvd.size(), training=False)

model = build_gpt(cfg["vocab"], cfg["seq_len"], cfg["d_model"], cfg["n_heads"], cfg["n_layers"])
schedule = WarmupCosine(cfg["peak_lr"] * hvd.size(), cfg["warmup_steps"], steps * cfg["epochs"])
opt = hvd.DistributedOptimizer(keras.optimizers.AdamW(learning_rate=schedule, weight_decay=0.1,
                                                      global_clipnorm=1.0))
model.compile(optimizer=opt,
              loss=keras.losses.SparseCategoricalCrossentropy(from_logits=True))

weights_path = os.path.join(cfg["out_dir"], "latest.weights.h5")
if cfg["initial_epoch"] > 0 and os.path.exists(weights_path):
    model.load_weights(weights_path)


class LogPerplexity(keras.callbacks.Callback):
    def on_epoch_end(self, epoch, logs=None):
        if logs and "val_loss" in logs:
            logs["val_ppl"] = math.exp(logs["val_loss"])
            print(f"epoch {epoch + 1}: val_loss {logs['val_loss']:.4f} val_ppl {logs['val_ppl']:.2f}")


callbacks = [
    hvd.callbacks.BroadcastGlobalVariablesCallback(0),
    hvd.callbacks.MetricAverageCallback(),
]
if hvd.rank() == 0:
    os.makedirs(cfg["out_dir"], exist_ok=True)
    callbacks += [
        keras.callbacks.ModelCheckpoint(weights_path, save_weights_only=True, save_freq=cfg["ckpt_every"]),
        LogPerplexity(),
        keras.callbacks.CSVLogger(os.path.join(cfg["out_dir"], "log.csv"), append=True),
    ]

model.fit(train_ds, steps_per_epoch=steps, epochs=cfg["epochs"], initial_epoch=cfg["initial_epoch"],
          validation_data=val_ds, validation_steps=val_steps, callbacks=callbacks,
          verbose=2 if hvd.rank() == 0 else 0)
