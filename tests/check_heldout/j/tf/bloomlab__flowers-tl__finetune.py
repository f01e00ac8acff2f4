"""Transfer learning on Oxford Flowers-102 with MobileNetV3, two stages, Horovod.

  horovodrun -np 4 python finetune.py --data_dir=/data/flowers102 --stage1_epochs=5
"""
import os

import tensorflow as tf
import horovod.tensorflow.keras as hvd
from absl import app, flags

from flowers import hvd_utils
from flowers.inputs import pipeline
from flowers.net import mobilenet_head, unfreeze_top

FLAGS = flags.FLAGS
flags.DEFINE_string("data_dir", "/data/flowers102", "folder with train/ and valid/ class folders")
flags.DEFINE_string("model_dir", "models/flowers", "where rank 0 writes checkpoints")
flags.DEFINE_integer("image_size", 224, "input resolution")
flags.DEFINE_integer("batch_size", 32, "images per worker and step")
flags.DEFINE_integer("stage1_epochs", 5, "epochs with a frozen backbone")
flags.DEFINE_integer("stage2_epochs", 15, "epochs with the top of the backbone unfrozen")
flags.DEFINE_integer("unfreeze", 40, "backbone layers trained in stage 2")
flags.DEFINE_float("lr", 1e-3, "stage-1 learning rate of one worker")
flags.DEFINE_float("stage2_lr", 1e-4, "stage-2 learning rate of one worker")


def main(_):
    hvd_utils.setup()
    size, bs = FLAGS.image_size, FLAGS.batch_size
    train_ds, n_train, classes = pipeline(os.path.join(FLAGS.data_dir, "train"), size, bs,
                                          hvd.rank(), hvd.size(), training=True)
    valid_ds, n_valid, _ = pipeline(os.path.join(FLAGS.data_dir, "valid"), size, bs,
                                    hvd.rank(), hvd.size(), training=False)
    steps = n_train // (bs * hvd.size())
    val_steps = max(1, n_valid // (bs * hvd.size()))

    model, base = mobilenet_head(len(classes), size)
    ckpt_cb = []
    if hvd.rank() == 0:
        os.makedirs(FLAGS.model_dir, exist_ok=True)
        ckpt_cb.append(tf.keras.callbacks.ModelCheckpoint(
            os.path.join(FLAGS.model_dir, "epoch{epoch:02d}-acc{val_accuracy:.3f}.keras")))

    # stage 1: classifier head only
    model.compile(optimizer=hvd_utils.distributed(tf.keras.optimizers.Adam(FLAGS.lr * hvd.size())),
                  loss="sparse_categorical_crossentropy", metrics=["accuracy"])
    model.fit(train_ds, steps_per_epoch=steps, epochs=FLAGS.stage1_epochs, validation_data=valid_ds,
              validation_steps=val_steps, callbacks=hvd_utils.sync_callbacks() + ckpt_cb,
              verbose=2 if hvd.rank() == 0 else 0)

    # stage 2: unfreeze the top of the backbone, new (wrapped) optimizer with a lower lr
    unfreeze_top(base, FLAGS.unfreeze)
    stage2_opt = tf.keras.optimizers.SGD(FLAGS.stage2_lr * hvd.size(), momentum=0.9)
    model.compile(optimizer=hvd_utils.distributed(stage2_opt),
                  loss="sparse_categorical_crossentropy", metrics=["accuracy"])
    model.fit(train_ds, steps_per_epoch=steps, initial_epoch=FLAGS.stage1_epochs,
              epochs=FLAGS.stage1_epochs + FLAGS.stage2_epochs, validation_data=valid_ds,
              validation_steps=val_steps, callbacks=hvd_utils.sync_callbacks() + ckpt_cb,
              verbose=2 if hvd.rank() == 0 else 0)

    if hvd.rank() == 0:
        model.save(os.path.join(FLAGS.model_dir, "final.keras"))


if __name__ == "__main__":
    app.run(main)
