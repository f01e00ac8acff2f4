"""Train an image classifier with a custom GradientTape loop, EMA weights and Horovod.

    horovodrun -np 4 python main.py --data-dir /data/imagenette --epochs 60
"""
import argparse
import os

import tensorflow as tf
import keras
import horovod.tensorflow as hvd

from emat.data import train_pipeline, val_pipeline
from emat.ema import ModelEMA
from emat.hooks import CheckpointHook, EvalHook, LoggerHook
from emat.trainer import Trainer


def get_args():
    ap = argparse.ArgumentParser()
    ap.add_argument("--data-dir", default="/data/imagenette")
    ap.add_argument("--img-size", type=int, default=160)
    ap.add_argument("--batch-size", type=int, default=64)
    ap.add_argument("--epochs", type=int, default=60)
    ap.add_argument("--lr", type=float, default=0.05)
    ap.add_argument("--ema-decay", type=float, default=0.9995)
    ap.add_argument("--ckpt-dir", default="./ckpt")
    ap.add_argument("--resume", action="store_true")
    ap.add_argument("--seed", type=int, default=0)
    return ap.parse_args()


def main():
    args = get_args()
    hvd.init()
    gpus = tf.config.list_physical_devices("GPU")
    if gpus:
        tf.config.set_visible_devices(gpus[hvd.local_rank()], "GPU")
        tf.config.experimental.set_memory_growth(gpus[hvd.local_rank()], True)
    # per-worker seed: different augmentation streams on each worker
    tf.random.set_seed(args.seed + hvd.rank())

    train_ds, n_train, num_classes = train_pipeline(args.data_dir, args.img_size, args.batch_size)
    val_ds = val_pipeline(args.data_dir, args.img_size, 2 * args.batch_size)
    steps_per_epoch = n_train // (args.batch_size * hvd.size())

    model = keras.applications.ResNet50V2(weights=None, input_shape=(args.img_size, args.img_size, 3),
                                          classes=num_classes, classifier_activation=None)
    schedule = keras.optimizers.schedules.CosineDecay(args.lr * hvd.size(), args.epochs * steps_per_epoch,
                                                      warmup_target=None)
    optimizer = keras.optimizers.SGD(schedule, momentum=0.9, nesterov=True)
    ema = ModelEMA(model, decay=args.ema_decay)

    ckpt = tf.train.Checkpoint(model=model, optimizer=optimizer, ema=ema.checkpointable(), epoch=tf.Variable(0))
    manager = tf.train.CheckpointManager(ckpt, args.ckpt_dir, max_to_keep=2)
    if args.resume and manager.latest_checkpoint:
        ckpt.restore(manager.latest_checkpoint)
        # keep every worker on the restored weights
        hvd.broadcast_variables(model.variables, root_rank=0)
        hvd.broadcast_variables(ema.shadow, root_rank=0)

    hooks = [LoggerHook(interval=50),
             EvalHook(val_ds, ema),
             CheckpointHook(manager, ckpt)]
    trainer = Trainer(model, optimizer, ema, hooks)
    trainer.fit(train_ds, start_epoch=int(ckpt.epoch.numpy()), epochs=args.epochs, steps_per_epoch=steps_per_epoch)


if __name__ == "__main__":
    main()
