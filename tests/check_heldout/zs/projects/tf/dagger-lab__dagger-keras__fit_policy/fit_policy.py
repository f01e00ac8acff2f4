"""DAgger with a Keras policy, data-parallel fitting with horovod.tensorflow.keras.

Every worker collects the same rollouts (same seeds, same broadcast policy), so the
aggregate dataset is identical everywhere.
"""
import argparse
import os

import tensorflow as tf
import keras
import horovod.tensorflow.keras as hvd

from dagger.dataset import Aggregate, make_dataset
from dagger.policy import build_policy
from dagger.rollout import collect

p = argparse.ArgumentParser()
p.add_argument("--iterations", type=int, default=10)
p.add_argument("--rollouts-per-iter", type=int, default=20)
p.add_argument("--epochs-per-iter", type=int, default=5)
p.add_argument("--batch", type=int, default=256)
p.add_argument("--lr", type=float, default=1e-3)
p.add_argument("--warmup", type=int, default=2)
p.add_argument("--beta-decay", type=float, default=0.7)
p.add_argument("--out", default="runs/dagger")
args = p.parse_args()

hvd.init()
gpus = tf.config.list_physical_devices("GPU")
for g in gpus:
    tf.config.experimental.set_memory_growth(g, True)
if gpus:
    tf.config.set_visible_devices(gpus[hvd.local_rank()], "GPU")

policy = build_policy()
opt = hvd.DistributedOptimizer(keras.optimizers.Adam(learning_rate=args.lr * hvd.size()))
policy.compile(optimizer=opt, loss="mse")

callbacks = [
    hvd.callbacks.BroadcastGlobalVariablesCallback(0),
    hvd.callbacks.MetricAverageCallback(),
    hvd.callbacks.LearningRateWarmupCallback(warmup_epochs=args.warmup, verbose=1),
]

agg = Aggregate()
beta = 1.0
for it in range(args.iterations):
    seeds = range(it * 1000, it * 1000 + args.rollouts_per_iter)
    states, labels, _ = collect(policy if it > 0 else None, seeds, beta)
    agg.add(states, labels)
    train_ds, val_ds, n_train = make_dataset(agg, args.batch, seed=it)
    policy.fit(train_ds, steps_per_epoch=max(1, n_train // args.batch), epochs=args.epochs_per_iter,
               validation_data=val_ds, callbacks=callbacks, verbose=2 if hvd.rank() == 0 else 0)
    beta *= args.beta_decay

    if hvd.rank() == 0:
        _, _, success = collect(policy, range(10**6, 10**6 + 50), beta=0.0)
        print(f"DAgger iter {it}: |D|={len(agg)} success={success:.2f}", flush=True)
        os.makedirs(args.out, exist_ok=True)
        policy.save(os.path.join(args.out, f"policy_iter{it:02d}.keras"))
