"""Building footprint segmentation, Horovod + TF2.

Port of train_tf1.py (MonitoredTrainingSession + hooks) to an eager GradientTape
loop. Launch: horovodrun -np 4 python train.py --data /scratch/inria_tiles
"""
import argparse
import os
import time

import tensorflow as tf
import keras
import horovod.tensorflow as hvd

from segnet import compat
from segnet.data import tile_dataset
from segnet.model import segnet_lite
from segnet.metrics import confusion_counts, iou_from_confusion

FLAGS = None


def parse_flags():
    p = argparse.ArgumentParser()
    p.add_argument("--data", default="/scratch/inria_tiles")
    p.add_argument("--model_dir", default="./model_dir")
    p.add_argument("--batch_size", type=int, default=8)
    p.add_argument("--learning_rate", type=float, default=1e-3)
    p.add_argument("--epochs", type=int, default=50)
    p.add_argument("--log_steps", type=int, default=20)
    return p.parse_args()


def main():
    hvd.init()
    logging = compat.get_logger()
    session_config = compat.make_session_config(hvd.local_rank())

    train_ds = tile_dataset(FLAGS.data, "train", FLAGS.batch_size, hvd.size(), hvd.rank())
    val_ds = tile_dataset(FLAGS.data, "val", FLAGS.batch_size, hvd.size(), hvd.rank(), training=False)

    model = segnet_lite()
    loss_fn = keras.losses.SparseCategoricalCrossentropy(from_logits=True)
    opt = keras.optimizers.Adam(learning_rate=FLAGS.learning_rate * hvd.size())

    ckpt = tf.train.Checkpoint(model=model, optimizer=opt)
    manager = tf.train.CheckpointManager(ckpt, FLAGS.model_dir, max_to_keep=3)

    @tf.function
    def train_step(x, y):
        with tf.GradientTape() as tape:
            loss = loss_fn(y, model(x, training=True))
        tape = hvd.DistributedGradientTape(tape)
        grads = tape.gradient(loss, model.trainable_variables)
        opt.apply_gradients(zip(grads, model.trainable_variables))
        return loss

    @tf.function
    def eval_step(x, y):
        return confusion_counts(model(x, training=False), y)

    step = 0
    for epoch in range(FLAGS.epochs):
        t0 = time.time()
        for x, y in train_ds:
            loss = train_step(x, y)
            if step == 0:
                # was: sess.run(hvd.broadcast_global_variables(0)) / BroadcastGlobalVariablesHook(0)
                hvd.broadcast_global_variables(0)
            if step % FLAGS.log_steps == 0 and hvd.rank() == 0:
                logging.info("epoch %d step %d loss %.4f", epoch, step, float(loss))
            step += 1

        cm = tf.zeros([2, 2], tf.float64)
        for x, y in val_ds:
            cm += eval_step(x, y)
        cm = hvd.allreduce(cm, op=hvd.Sum, name="val_confusion")
        miou = float(iou_from_confusion(cm))
        if hvd.rank() == 0:
            logging.info("epoch %d val mIoU %.4f (%.0fs)", epoch, miou, time.time() - t0)
            manager.save(checkpoint_number=epoch)


if __name__ == "__main__":
    FLAGS = parse_flags()
    main()
