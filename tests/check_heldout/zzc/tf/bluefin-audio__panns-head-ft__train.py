"""Fine-tune a pretrained log-mel CNN (PANNs-style, converted to Keras) on ESC-50 folds.

phase 1: frozen backbone, train the head (early stopping on val loss, best head kept)
phase 2: unfreeze the last conv blocks, new optimizer, lower lr
"""
import argparse
import os
import time

import tensorflow as tf
import keras
import horovod.tensorflow as hvd

from audioft.data import load_fold_arrays, shard_and_batch
from audioft.model import build_model, set_trainable_blocks
from audioft.seeding import seed_everything
from audioft.steps import make_steps, reduce_eval

p = argparse.ArgumentParser()
p.add_argument("--features", default="data/esc50_logmel.npz")
p.add_argument("--backbone", default="pretrained/cnn10_audioset.weights.h5")
p.add_argument("--val-fold", type=int, default=5)
p.add_argument("--batch", type=int, default=32)
p.add_argument("--lr", type=float, default=1e-3)
p.add_argument("--ft-lr", type=float, default=1e-4)
p.add_argument("--head-epochs", type=int, default=20)
p.add_argument("--ft-epochs", type=int, default=30)
p.add_argument("--patience", type=int, default=5)
p.add_argument("--seed", type=int, default=2024)
p.add_argument("--workdir", default="work/esc50")
args = p.parse_args()

hvd.init()
gpus = tf.config.list_physical_devices("GPU")
for g in gpus:
    tf.config.experimental.set_memory_growth(g, True)
if gpus:
    tf.config.set_visible_devices(gpus[hvd.local_rank()], "GPU")

# different augmentation noise on every worker
seed_everything(args.seed + hvd.rank())

(x_tr, y_tr), (x_va, y_va) = load_fold_arrays(args.features, args.val_fold)
train_ds = shard_and_batch(x_tr, y_tr, args.batch, hvd.size(), hvd.rank(), training=True)
val_ds = shard_and_batch(x_va, y_va, args.batch, hvd.size(), hvd.rank(), training=False)

model = build_model(num_classes=50, input_shape=x_tr.shape[1:], backbone_weights=args.backbone)
best_path = os.path.join(args.workdir, "best_head.weights.h5")
if hvd.rank() == 0:
    os.makedirs(args.workdir, exist_ok=True)


def run_phase(name, optimizer, epochs, patience):
    train_step, eval_step = make_steps(model, optimizer)
    best, wait = float("inf"), 0
    for epoch in range(epochs):
        t0 = time.time()
        for i, (x, y) in enumerate(train_ds):
            loss = train_step(x, y)
            if name == "head" and epoch == 0 and i == 0:
                hvd.broadcast_variables(model.variables, root_rank=0)
                hvd.broadcast_variables(optimizer.variables, root_rank=0)
        val_loss, val_acc = reduce_eval(eval_step, val_ds)
        if hvd.rank() == 0:
            print(f"[{name}] epoch {epoch} loss {loss:.4f} val_loss {val_loss:.4f} "
                  f"val_acc {val_acc:.4f} {time.time() - t0:.1f}s", flush=True)
        if val_loss < best:
            best, wait = val_loss, 0
            if hvd.rank() == 0:
                model.save_weights(best_path)
        else:
            wait += 1
            if wait >= patience:
                break
    return best


run_phase("head", keras.optimizers.Adam(args.lr * hvd.size()), args.head_epochs, args.patience)

# continue from the best head, not from the last epoch
if hvd.rank() == 0:
    model.load_weights(best_path)

set_trainable_blocks(model, ("conv_block3", "conv_block4"))
run_phase("finetune", keras.optimizers.Adam(args.ft_lr * hvd.size()), args.ft_epochs, args.patience)

if hvd.rank() == 0:
    model.save(os.path.join(args.workdir, "esc50_cnn10_ft.keras"))
