# Benchmark several keras.applications backbones on one image folder with Horovod.
#   horovodrun -np 4 python train.py --data /data/cells --backbones mobilenetv2 efficientnetb0
import argparse
import os

import keras
import horovod.tensorflow.keras as hvd

from kzoo import get_backbone, list_backbones
from kzoo.env import setup_gpus, setup_logging
from kzoo.data import image_datasets
from kzoo.report import write_result

ap = argparse.ArgumentParser(description=__doc__)
ap.add_argument("--data", required=True)
ap.add_argument("--backbones", nargs="+", default=["mobilenetv2"], choices=list_backbones())
ap.add_argument("--image-size", type=int, default=160)
ap.add_argument("--batch-size", type=int, default=32, help="per worker")
ap.add_argument("--lr", type=float, default=5e-4)
ap.add_argument("--epochs", type=int, default=20)
ap.add_argument("--warmup", type=int, default=3)
ap.add_argument("--out", default="bench")
args = ap.parse_args()

hvd.init()
setup_logging(hvd.rank())
setup_gpus()

train_ds, val_ds, n_classes = image_datasets(args.data, args.image_size, args.batch_size)

for name in args.backbones:
    keras.backend.clear_session()
    model = get_backbone(name, args.image_size, n_classes)
    lr = args.lr * hvd.size()
    model.compile(optimizer=hvd.DistributedOptimizer(keras.optimizers.Adam(lr)),
                  loss="sparse_categorical_crossentropy", metrics=["accuracy"])
    callbacks = [
        hvd.callbacks.BroadcastGlobalVariablesCallback(root_rank=0),
        hvd.callbacks.MetricAverageCallback(),
        hvd.callbacks.LearningRateWarmupCallback(initial_lr=lr, warmup_epochs=args.warmup, verbose=0),
        keras.callbacks.ReduceLROnPlateau(monitor="val_loss", factor=0.3, patience=3),
        keras.callbacks.EarlyStopping(monitor="val_accuracy", patience=6, restore_best_weights=True),
    ]
    ckpt_dir = os.path.join(args.out, "checkpoints")
    if hvd.rank() == 0:
        os.makedirs(ckpt_dir, exist_ok=True)
        callbacks.append(keras.callbacks.ModelCheckpoint(os.path.join(ckpt_dir, f"{name}.keras"),
                                                         monitor="val_accuracy", save_best_only=True))
    history = model.fit(train_ds, validation_data=val_ds, epochs=args.epochs, callbacks=callbacks,
                        verbose=2 if hvd.rank() == 0 else 0)
    if hvd.rank() == 0:
        write_result(args.out, name, history.history,
                     {"workers": hvd.size(), "batch_per_worker": args.batch_size, "lr": lr})
