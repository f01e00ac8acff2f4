#!/usr/bin/env python3
"""DeepFM / Criteo, keras + horovod

    horovodrun -np 16 -H n1:4,n2:4,n3:4,n4:4 python train.py
"""
import os

import keras
import horovod.tensorflow.keras as hvd

from deepfm.options import build_parser
from deepfm.utils import hvd_init_and_pin
from deepfm import dataset, model as model_lib
from deepfm.optim import build_optimizer

args = build_parser().parse_args()
hvd_init_and_pin()

train = dataset.make(args.data, args.train_days.split(","), args.batch_size, args.vocab_size)
valid = dataset.make(args.data, [args.valid_day], args.batch_size, args.vocab_size, training=False)

model = model_lib.build(args.vocab_size, args.k, args.dnn)
opt, lr = build_optimizer(args)
model.compile(opt, loss="binary_crossentropy",
              metrics=[keras.metrics.AUC(name="auc"), "binary_crossentropy"])

os.makedirs(args.ckpt_dir, exist_ok=True)
callbacks = [
    hvd.callbacks.BroadcastGlobalVariablesCallback(0),
    hvd.callbacks.MetricAverageCallback(),
    hvd.callbacks.LearningRateWarmupCallback(initial_lr=lr, warmup_epochs=1, verbose=0),
    keras.callbacks.ModelCheckpoint(os.path.join(args.ckpt_dir, "deepfm.weights.h5"),
                                    save_weights_only=True, monitor="val_auc", mode="max",
                                    save_best_only=True),
]

model.fit(train,
          steps_per_epoch=args.steps_per_epoch // hvd.size(),
          epochs=args.epochs,
          validation_data=valid,
          callbacks=callbacks,
          verbose=1 if hvd.rank() == 0 else 0)

if hvd.rank() == 0:
    model.save(os.path.join(args.ckpt_dir, "deepfm_final.keras"))
