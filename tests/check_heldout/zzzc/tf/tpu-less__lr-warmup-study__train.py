"""How long must warm-up be? One Keras fit per (optimizer, warm-up length) on N workers."""
import argparse

import tensorflow as tf
import horovod.tensorflow.keras as hvd

from wlab import callbacks, data, model, optimizers, utils

ap = argparse.ArgumentParser()
ap.add_argument("--optimizer", choices=optimizers.names(), default="sgd")
ap.add_argument("--base-lr", type=float, default=0.05)
ap.add_argument("--warmup-epochs", type=int, default=3)
ap.add_argument("--batch-per-worker", type=int, default=128)
ap.add_argument("--epochs", type=int, default=12)
ap.add_argument("--n-train", type=int, default=50000)
ap.add_argument("--out", default="results")
args = ap.parse_args()

hvd.init()
utils.seed_everything(1234)
for gpu in tf.config.list_physical_devices("GPU"):
    tf.config.experimental.set_memory_growth(gpu, True)
gpus = tf.config.list_physical_devices("GPU")
if gpus:
    tf.config.set_visible_devices(gpus[hvd.local_rank()], "GPU")

x_tr, y_tr = data.synthetic(args.n_train, seed=0)
x_va, y_va = data.synthetic(args.n_train // 5, seed=1)
train_ds = data.pipeline(x_tr, y_tr, args.batch_per_worker, hvd.rank(), hvd.size())
val_ds = data.pipeline(x_va, y_va, 512, hvd.rank(), hvd.size(), train=False)
steps = args.n_train // (args.batch_per_worker * hvd.size())

lr = args.base_lr * hvd.size()
utils.log_run(args, lr, steps)
net = model.mlp()
net.compile(optimizer=hvd.DistributedOptimizer(optimizers.get(args.optimizer, lr)),
            loss=tf.keras.losses.SparseCategoricalCrossentropy(from_logits=True),
            metrics=["accuracy"])

run = f"{args.optimizer}_wu{args.warmup_epochs}_np{hvd.size()}"
net.fit(train_ds, steps_per_epoch=steps, epochs=args.epochs, validation_data=val_ds,
        callbacks=callbacks.standard(lr, args.warmup_epochs, steps, args.out, run),
        verbose=2 if hvd.rank() == 0 else 0)

val_loss, val_acc = utils.averaged(net.evaluate(val_ds, verbose=0), "final")
if hvd.rank() == 0:
    print(f"{run}: final val_loss={val_loss:.4f} val_acc={val_acc:.4f}")
