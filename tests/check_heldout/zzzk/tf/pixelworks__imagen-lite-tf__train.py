#!/usr/bin/env python3
"""imagen-lite: class-conditional 64px base model with v-prediction + CFG dropout.

    mpirun -np 8 python train.py --hparams base64 --data_dir /data/imnet64
"""
import argparse
import os

import tensorflow as tf
import keras
import horovod.tensorflow as hvd

from imagen_lite import hparams as hp_lib
from imagen_lite.distributed import init_workers, log0
from imagen_lite.input_pipeline import get_datasets
from imagen_lite.unet import CondUNet
from imagen_lite.trainer import Trainer


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--hparams", default="base64", choices=sorted(hp_lib.PRESETS))
    ap.add_argument("--data_dir", default="/data/imnet64")
    ap.add_argument("--model_dir", default="./ckpt/imagen_lite")
    ap.add_argument("--eval_only", action="store_true")
    args = ap.parse_args()

    hp = hp_lib.get(args.hparams)
    init_workers()
    log0("hparams:", hp)

    train_ds, eval_ds = get_datasets(args.data_dir, hp)
    model = CondUNet(hp)
    optimizer = keras.optimizers.Adam(learning_rate=hp.learning_rate, beta_2=0.99, epsilon=1e-8,
                                      global_clipnorm=hp.clip)

    trainer = Trainer(hp, model, optimizer, args.model_dir)
    trainer.restore_or_init(next(iter(train_ds)))
    if not args.eval_only:
        trainer.train(train_ds, eval_ds)
    trainer.evaluate(eval_ds)


if __name__ == "__main__":
    main()
