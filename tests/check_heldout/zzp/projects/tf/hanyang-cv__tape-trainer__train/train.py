import os
import time

import tensorflow as tf
import horovod.tensorflow as hvd

from tapetrain.data import cifar100
from tapetrain.loop import evaluate, make_train_step, update_ema
from tapetrain.net import wide_cnn
from tapetrain.options import get_options

hvd.init()
for gpu in tf.config.list_physical_devices("GPU"):
    tf.config.experimental.set_memory_growth(gpu, True)
gpus = tf.config.list_physical_devices("GPU")
if gpus:
    tf.config.set_visible_devices(gpus[hvd.local_rank()], "GPU")

opt = get_options()
chief = hvd.rank() == 0
run_dir = os.path.join(opt.logdir, "cifar100_" + time.strftime("%Y%m%d_%H%M%S"))

train_ds, test_ds, steps_per_epoch = cifar100(opt.batch_size, hvd.size(), hvd.rank())
model = wide_cnn()
lr = tf.keras.optimizers.schedules.CosineDecayRestarts(opt.base_lr * hvd.size(),
                                                        first_decay_steps=opt.first_cycle * steps_per_epoch)
optimizer = tf.keras.optimizers.SGD(learning_rate=lr, momentum=0.9, nesterov=True)
ema = [tf.Variable(v, trainable=False) for v in model.variables]
train_step = make_train_step(model, optimizer, ema)

ckpt = tf.train.Checkpoint(model=model, optimizer=optimizer)
manager = tf.train.CheckpointManager(ckpt, os.path.join(opt.logdir, "ckpt"), max_to_keep=3)
if chief:
    os.makedirs(run_dir, exist_ok=True)
writer = tf.summary.create_file_writer(run_dir) if chief else None
best = 0.0

for epoch in range(opt.epochs):
    t0 = time.time()
    for step, (images, labels) in enumerate(train_ds):
        loss = train_step(images, labels, epoch == 0 and step == 0)
        update_ema(ema, model, opt.ema_decay)
    live = [v.numpy() for v in model.variables]
    acc = evaluate(model, test_ds)
    for v, e in zip(model.variables, ema):
        v.assign(e)
    ema_acc = evaluate(model, test_ds)
    for v, w in zip(model.variables, live):
        v.assign(w)
    if chief:
        with writer.as_default():
            tf.summary.scalar("loss", loss, step=epoch)
            tf.summary.scalar("test_acc", acc, step=epoch)
            tf.summary.scalar("ema_acc", ema_acc, step=epoch)
        manager.save(checkpoint_number=epoch)
        if ema_acc > best:
            best = ema_acc
            model.save_weights(os.path.join(run_dir, "best_ema.weights.h5"))
        print(f"epoch {epoch} loss {float(loss):.4f} acc {acc:.4f} ema {ema_acc:.4f} ({time.time() - t0:.0f}s)")
