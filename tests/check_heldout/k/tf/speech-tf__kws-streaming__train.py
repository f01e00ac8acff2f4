"""Keyword spotting (Speech Commands v2, 12 labels) with a DS-CNN.

    horovodrun -np 4 python -m kws.train --data_dir /data/speech_commands_v0.02
"""
import argparse
import os

import horovod.tensorflow as hvd
import tensorflow as tf

from kws import LABELS
from kws.dist import setup
from kws.features import log_mel
from kws.input_data import list_files, make_dataset
from kws.models import ds_cnn

FLAGS = argparse.ArgumentParser()
FLAGS.add_argument("--data_dir", default="/data/speech_commands_v0.02")
FLAGS.add_argument("--train_dir", default="/tmp/kws_train")
FLAGS.add_argument("--batch_size", type=int, default=100)
FLAGS.add_argument("--learning_rate", type=float, default=5e-4)
FLAGS.add_argument("--how_many_training_steps", type=int, default=30000)
FLAGS.add_argument("--eval_step_interval", type=int, default=1000)


def main():
    args = FLAGS.parse_args()
    rank, size = setup()

    files = list_files(args.data_dir)
    train_ds = make_dataset(files["training"][rank::size], args.batch_size, training=True)
    val_ds = make_dataset(files["validation"][rank::size], args.batch_size, training=False)

    model = ds_cnn(len(LABELS))
    optimizer = tf.keras.optimizers.Adam(args.learning_rate * size)
    loss_fn = tf.keras.losses.SparseCategoricalCrossentropy(from_logits=True)
    train_acc = tf.keras.metrics.SparseCategoricalAccuracy()
    val_acc = tf.keras.metrics.SparseCategoricalAccuracy()

    @tf.function
    def train_step(audio, labels):
        with tf.GradientTape() as tape:
            logits = model(log_mel(audio), training=True)
            loss = loss_fn(labels, logits)
        tape = hvd.DistributedGradientTape(tape)
        grads = tape.gradient(loss, model.trainable_variables)
        optimizer.apply_gradients(zip(grads, model.trainable_variables))
        train_acc.update_state(labels, logits)
        return loss

    steps = args.how_many_training_steps // size
    for step, (audio, labels) in enumerate(train_ds.take(steps)):
        loss = train_step(audio, labels)
        if step == 0:
            hvd.broadcast_variables(model.variables, root=0)
            hvd.broadcast_variables(optimizer.variables, root=0)

        if (step + 1) % args.eval_step_interval == 0 or step + 1 == steps:
            val_acc.reset_state()
            for audio_v, labels_v in val_ds:
                val_acc.update_state(labels_v, model(log_mel(audio_v), training=False))
            if rank == 0:
                print(f"step {step + 1}: loss {float(loss):.4f} train acc {float(train_acc.result()):.4f} "
                      f"validation acc {float(val_acc.result()):.4f}", flush=True)
                os.makedirs(args.train_dir, exist_ok=True)
                model.save_weights(os.path.join(args.train_dir, "ds_cnn.weights.h5"))
            train_acc.reset_state()


if __name__ == "__main__":
    main()
