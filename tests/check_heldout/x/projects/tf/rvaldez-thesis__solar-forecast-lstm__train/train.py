"""Day-ahead PV power forecasting with an LSTM (R. Valdez, PhD thesis, ch. 3 + ch. 6 transfer).

Phase 1 trains on the 12 source plants, phase 2 fine-tunes on the target plant.
    horovodrun -np 4 python train.py --epochs 30 --finetune-epochs 5
"""
import time

import horovod.tensorflow as hvd
import tensorflow as tf

from solarcast.ckpt import Checkpointer
from solarcast.config import get_config
from solarcast.data import load_plants, make_dataset
from solarcast.model import build_lstm
from solarcast.steps import finetune_step, train_step

cfg = get_config()
hvd.init()
gpus = tf.config.list_physical_devices("GPU")
for g in gpus:
    tf.config.experimental.set_memory_growth(g, True)
if gpus:
    tf.config.set_visible_devices(gpus[hvd.local_rank()], "GPU")
tf.random.set_seed(cfg.seed)

src_train, src_val, tgt_train = load_plants(cfg.data_dir, cfg.target_plant)
steps = len(src_train[0]) // (cfg.batch_size * hvd.size())
train_ds = make_dataset(*src_train, cfg.batch_size, hvd.rank(), hvd.size(), training=True, steps=steps)
val_ds = make_dataset(*src_val, cfg.batch_size, hvd.rank(), hvd.size(), training=False)

model = build_lstm(cfg.window, cfg.n_features, cfg.horizon, units=cfg.units)
optimizer = tf.keras.optimizers.Adam(learning_rate=cfg.lr * hvd.size(), clipnorm=cfg.clipnorm)
ckpt = Checkpointer(cfg.ckpt_dir, model, optimizer)
start_epoch = ckpt.restore_latest()      # every worker reads the same checkpoint (shared /work)


def evaluate(ds):
    abs_err, n = 0.0, 0.0
    for x, y in ds:
        pred = model(x, training=False)
        abs_err += float(tf.reduce_sum(tf.abs(pred - y)))
        n += float(tf.size(y))
    tot = hvd.allreduce(tf.constant([abs_err, n], tf.float64), op=hvd.Sum, name="val_mae")
    return float(tot[0] / tot[1])


first = True
for epoch in range(start_epoch, cfg.epochs):
    t0 = time.time()
    for x, y in train_ds:
        loss = train_step(model, optimizer, x, y)
        if first:
            # after the first step the optimizer slots exist; take rank 0's weights and slots
            hvd.broadcast_variables(model.variables, root_rank=0)
            hvd.broadcast_variables(optimizer.variables, root_rank=0)
            first = False
    mae = evaluate(val_ds)
    if hvd.rank() == 0:
        print(f"[source] epoch {epoch} loss {float(loss):.4f} val MAE {mae:.4f} ({time.time() - t0:.0f}s)", flush=True)
    ckpt.save(epoch)

# ---- phase 2: transfer to the target plant (thesis ch. 6) --------------------------------
if cfg.finetune_epochs > 0:
    ft_steps = len(tgt_train[0]) // (cfg.batch_size * hvd.size())
    ft_ds = make_dataset(*tgt_train, cfg.batch_size, hvd.rank(), hvd.size(), training=True, steps=ft_steps)
    ft_opt = tf.keras.optimizers.Adam(learning_rate=cfg.finetune_lr * hvd.size())
    for epoch in range(cfg.finetune_epochs):
        for x, y in ft_ds:
            loss = finetune_step(model, ft_opt, x, y)
        if hvd.rank() == 0:
            print(f"[target] epoch {epoch} loss {float(loss):.4f}", flush=True)
    ckpt.save(cfg.epochs + cfg.finetune_epochs, final=True)
