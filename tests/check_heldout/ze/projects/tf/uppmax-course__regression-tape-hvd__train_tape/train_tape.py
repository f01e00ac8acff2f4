"""Exercise 3 (solution): the GradientTape regression from exercise 1, now on several GPUs.

    sbatch -A uppmax2024-2-10 -n 4 --gres=gpu:4 --wrap "srun python train_tape.py"
"""
import tensorflow as tf

import horovod.tensorflow as hvd

from regr.data import load_rank_split
from regr.loop import Loop
from regr.model import make_mlp
from regr.plots import plot_history
from regr.settings import get_settings

hvd.init()
gpus = tf.config.list_physical_devices("GPU")
for gpu in gpus:
    tf.config.experimental.set_memory_growth(gpu, True)
if gpus:
    tf.config.set_visible_devices(gpus[hvd.local_rank()], "GPU")

S = get_settings()
train_ds, val_ds, n_features, steps = load_rank_split(S)

model = make_mlp(n_features, S.hidden)
optimizer = tf.keras.optimizers.Adam(learning_rate=S.lr * hvd.size())

ckpt = tf.train.Checkpoint(model=model, optimizer=optimizer)
manager = tf.train.CheckpointManager(ckpt, S.ckpt_dir, max_to_keep=3)

loop = Loop(model, optimizer)
history = []
for epoch in range(S.epochs):
    train_mse = loop.train_epoch(train_ds, steps, first_epoch=(epoch == 0))
    val_mse = loop.evaluate(val_ds)
    history.append((train_mse, val_mse))
    if hvd.rank() == 0:
        print(f"epoch {epoch + 1}/{S.epochs} train mse {train_mse:.4f} val mse {val_mse:.4f}", flush=True)
        if (epoch + 1) % S.ckpt_every == 0:
            manager.save(checkpoint_number=epoch + 1)

if hvd.rank() == 0:
    plot_history(history, f"loss_{hvd.size()}gpus.png")
