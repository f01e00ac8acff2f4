"""Store-level demand forecasting (28-day horizon) with a small transformer encoder.

    horovodrun -np 8 python train.py --panel data/panel.npz --epochs 20
"""
import argparse

import numpy as np
import tensorflow as tf
import keras
import horovod.tensorflow as hvd

from dt.ckpt import BestKeeper
from dt.data import load_panel, make_windows
from dt.loop import make_eval_step, make_train_step
from dt.model import demand_transformer
from dt.utils import EarlyStopping, get_logger

parser = argparse.ArgumentParser()
parser.add_argument("--panel", default="data/panel.npz")
parser.add_argument("--context", type=int, default=112)
parser.add_argument("--horizon", type=int, default=28)
parser.add_argument("--val-days", type=int, default=56)
parser.add_argument("--batch", type=int, default=256)
parser.add_argument("--lr", type=float, default=3e-4)
parser.add_argument("--epochs", type=int, default=20)
parser.add_argument("--patience", type=int, default=4)
parser.add_argument("--model-dir", default="models/dt")
args = parser.parse_args()

hvd.init()
gpus = tf.config.list_physical_devices("GPU")
for g in gpus:
    tf.config.experimental.set_memory_growth(g, True)
if gpus:
    tf.config.set_visible_devices(gpus[hvd.local_rank()], "GPU")
log = get_logger(hvd.rank())

sales, cov = load_panel(args.panel)
days = sales.shape[1]
x_tr, y_tr = make_windows(sales, cov, args.context, args.horizon, args.context, days - args.val_days)
x_va, y_va = make_windows(sales, cov, args.context, args.horizon, days - args.val_days, days)

# same permutation everywhere (seeded), then an equal slice for each worker
perm = np.random.default_rng(0).permutation(len(x_tr))
per_worker = len(perm) // hvd.size()
mine = perm[hvd.rank() * per_worker:(hvd.rank() + 1) * per_worker]
train_ds = (tf.data.Dataset.from_tensor_slices((x_tr[mine], y_tr[mine]))
            .shuffle(50000, seed=hvd.rank()).batch(args.batch, drop_remainder=True).prefetch(2))
val_idx = np.arange(hvd.rank(), len(x_va), hvd.size())
val_ds = tf.data.Dataset.from_tensor_slices((x_va[val_idx], y_va[val_idx])).batch(1024)

model = demand_transformer(args.context, x_tr.shape[-1], args.horizon)
optimizer = keras.optimizers.AdamW(learning_rate=args.lr * hvd.size(), weight_decay=1e-4)
train_step = make_train_step(model, optimizer, keras.losses.Huber())
eval_step = make_eval_step(model)
keeper = BestKeeper(model, optimizer, args.model_dir) if hvd.rank() == 0 else None
stopper = EarlyStopping(args.patience)

for epoch in range(args.epochs):
    for i, (xb, yb) in enumerate(train_ds):
        loss = train_step(xb, yb)
        if epoch == 0 and i == 0:
            hvd.broadcast_variables(model.variables, root_rank=0)
            hvd.broadcast_variables(optimizer.variables, root_rank=0)

    abs_err, n = 0.0, 0.0
    for xb, yb in val_ds:
        e, c = eval_step(xb, yb)
        abs_err, n = abs_err + float(e), n + float(c)
    local_mae = abs_err / n
    val_mae = float(hvd.allreduce(tf.constant(local_mae), op=hvd.Sum, name="val_mae"))

    log.info("epoch %d loss %.4f val_mae %.4f", epoch, float(loss), val_mae)
    if keeper is not None and keeper.update(epoch, val_mae):
        log.info("new best val_mae %.4f", val_mae)
    if stopper.step(val_mae):
        log.info("early stop at epoch %d", epoch)
        break
