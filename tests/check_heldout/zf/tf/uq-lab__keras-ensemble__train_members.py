"""Train a deep ensemble of K CNNs on CIFAR-10, one member after the other, then score it.

    mpirun -np 4 python train_members.py --members 5
"""
import argparse
import os

import horovod.tensorflow.keras as hvd
import keras
import tensorflow as tf

from uqk.cbs import make_callbacks
from uqk.data import cifar10_shard
from uqk.members import member
from uqk.predict import ensemble_probs, scores

p = argparse.ArgumentParser()
p.add_argument("--members", type=int, default=5)
p.add_argument("--epochs", type=int, default=25)
p.add_argument("--batch-size", type=int, default=128)
p.add_argument("--lr", type=float, default=1e-3)
p.add_argument("--seed", type=int, default=17)
p.add_argument("--out", default="ensemble")
args = p.parse_args()

hvd.init()
gpus = tf.config.list_physical_devices("GPU")
for g in gpus:
    tf.config.experimental.set_memory_growth(g, True)
if gpus:
    tf.config.set_visible_devices(gpus[hvd.local_rank()], "GPU")
keras.utils.set_random_seed(args.seed + hvd.rank())

(x_train, y_train), (x_test, y_test) = cifar10_shard(hvd.rank(), hvd.size())
callbacks = make_callbacks(args.out, samples_per_epoch=len(x_train))

models = []
for i in range(args.members):
    m = member(i)
    m.compile(optimizer=hvd.DistributedOptimizer(keras.optimizers.Adam(learning_rate=args.lr)),
              loss=keras.losses.SparseCategoricalCrossentropy(from_logits=True),
              metrics=["accuracy"])
    hist = m.fit(x_train, y_train, batch_size=args.batch_size, epochs=args.epochs,
                 validation_data=(x_test, y_test), callbacks=callbacks,
                 verbose=2 if hvd.rank() == 0 else 0)
    if hvd.rank() == 0:
        print(f"member {i}: val_accuracy {hist.history['val_accuracy'][-1]:.4f}")
        m.save_weights(os.path.join(args.out, f"member_{i}.weights.h5"))
    models.append(m)

res = scores(ensemble_probs(models, x_test), y_test)
if hvd.rank() == 0:
    print("ensemble:", res)
