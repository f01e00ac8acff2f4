"""Semantic segmentation: train the decoder on a frozen MobileNetV2, then fine-tune everything.

    horovodrun -np 8 -H a:4,b:4 python train.py --train lists/train.txt --val lists/val.txt
"""
import argparse
import os

import horovod.tensorflow.keras as hvd
import keras

from seglab import gpu
from seglab.data import dataset
from seglab.hparams import HParams
from seglab.model import build, compile_stage


def stage_callbacks(hp, lr, steps, tag):
    cbs = [hvd.callbacks.BroadcastGlobalVariablesCallback(0),
           hvd.callbacks.MetricAverageCallback(),
           hvd.callbacks.LearningRateWarmupCallback(initial_lr=lr, warmup_epochs=hp.warmup_epochs,
                                                    steps_per_epoch=steps)]
    if hvd.rank() == 0:
        cbs.append(keras.callbacks.ModelCheckpoint(os.path.join(hp.out_dir, tag + "-{epoch:02d}.keras")))
    return cbs


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--train", default="lists/train.txt")
    ap.add_argument("--val", default="lists/val.txt")
    args = ap.parse_args()

    hvd.init()
    gpu.configure()
    hp = HParams()
    if hvd.rank() == 0:
        os.makedirs(hp.out_dir, exist_ok=True)

    train_ds, n_train = dataset(args.train, hp.image_size, hp.batch_size, hvd.rank(), hvd.size(), True)
    val_ds, _ = dataset(args.val, hp.image_size, hp.batch_size, hvd.rank(), hvd.size(), False)
    steps = n_train // hp.batch_size
    verbose = 1 if hvd.rank() == 0 else 0

    model, backbone = build(hp)

    # stage 1: decoder only
    backbone.trainable = False
    compile_stage(model, hvd.DistributedOptimizer(keras.optimizers.Adam(hp.head_lr)), hp.num_classes)
    model.fit(train_ds, steps_per_epoch=steps, epochs=hp.head_epochs, validation_data=val_ds,
              callbacks=stage_callbacks(hp, hp.head_lr, steps, "head"), verbose=verbose)

    # stage 2: everything, lower lr, fresh optimizer
    backbone.trainable = True
    compile_stage(model, hvd.DistributedOptimizer(keras.optimizers.Adam(hp.finetune_lr)), hp.num_classes)
    model.fit(train_ds, steps_per_epoch=steps, initial_epoch=hp.head_epochs,
              epochs=hp.head_epochs + hp.finetune_epochs, validation_data=val_ds,
              callbacks=stage_callbacks(hp, hp.finetune_lr, steps, "full"), verbose=verbose)


if __name__ == "__main__":
    main()
