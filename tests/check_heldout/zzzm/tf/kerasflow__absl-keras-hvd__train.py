# Copyright 2023 kerasflow authors. Apache-2.0.
"""Keras image classifier, data parallel with Horovod.

  horovodrun -np 4 python train.py --model=small_cnn --epochs=30 --base_lr=1e-3
"""
import os

from absl import app
from absl import flags
from absl import logging

import tensorflow as tf
import horovod.tensorflow.keras as hvd

from akh import flags_def  # noqa: F401  (defines the flags)
from akh import hvd_setup
from akh import data
from akh import models
from akh import callbacks as cb

FLAGS = flags.FLAGS


def main(argv):
    del argv
    hvd_setup.init_and_pin(FLAGS.mixed_precision)

    train_ds, steps_per_epoch = data.train_dataset(FLAGS.batch_size, hvd.rank(), hvd.size(),
                                                   n=FLAGS.n_train, seed=FLAGS.seed)
    val_ds, val_steps = data.eval_dataset(FLAGS.batch_size, hvd.rank(), hvd.size(), n=FLAGS.n_val)

    model = models.get(FLAGS.model)(num_classes=FLAGS.num_classes)
    lr = FLAGS.base_lr * hvd.size()
    opt = models.get_optimizer(FLAGS.optimizer, lr)
    opt = hvd.DistributedOptimizer(opt, compression=hvd.Compression.fp16
                                   if FLAGS.fp16_allreduce else hvd.Compression.none)
    model.compile(optimizer=opt,
                  loss=tf.keras.losses.SparseCategoricalCrossentropy(from_logits=True),
                  metrics=["accuracy"])

    callbacks = cb.build(initial_lr=lr, warmup_epochs=FLAGS.warmup_epochs,
                         model_dir=FLAGS.model_dir, steps_per_epoch=steps_per_epoch)
    model.fit(train_ds,
              epochs=FLAGS.epochs,
              steps_per_epoch=steps_per_epoch,
              validation_data=val_ds,
              validation_steps=val_steps,
              callbacks=callbacks,
              verbose=1 if hvd.rank() == 0 else 0)

    if hvd.rank() == 0:
        model.save(os.path.join(FLAGS.model_dir, "final.keras"))
        logging.info("saved final model to %s", FLAGS.model_dir)


if __name__ == "__main__":
    app.run(main)
