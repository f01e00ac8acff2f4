"""Sentiment fine-tuning of a small pretrained Transformer encoder (distilled in-house).

Stage 1 trains the pooler + classifier with the encoder frozen; stage 2 unfreezes the top
`--unfreeze_layers` encoder layers with a fresh optimizer.

  horovodrun -np 4 python train.py --data_dir=data/reviews_tok --encoder_weights=enc.weights.h5
"""
import os

from absl import app, flags, logging
import tensorflow as tf
import keras
import horovod.tensorflow as hvd

from textft import data, encoder, evaluation, training

FLAGS = flags.FLAGS
flags.DEFINE_string("data_dir", "data/reviews_tok", "tokenised npz splits")
flags.DEFINE_string("encoder_weights", "pretrained/distil_enc_6l.weights.h5", "pretrained encoder")
flags.DEFINE_string("model_dir", "models/sentiment", "checkpoints and export")
flags.DEFINE_integer("batch_size", 64, "per-worker batch size")
flags.DEFINE_float("lr", 2e-4, "stage-1 lr for one worker")
flags.DEFINE_float("ft_lr", 2e-5, "stage-2 lr")
flags.DEFINE_integer("stage1_epochs", 3, "")
flags.DEFINE_integer("stage2_epochs", 8, "")
flags.DEFINE_integer("unfreeze_layers", 2, "")
flags.DEFINE_integer("patience", 2, "early stopping patience (epochs)")


def main(_):
    hvd.init()
    for gpu in tf.config.list_physical_devices("GPU"):
        tf.config.experimental.set_memory_growth(gpu, True)
    gpus = tf.config.list_physical_devices("GPU")
    if gpus:
        tf.config.set_visible_devices(gpus[hvd.local_rank()], "GPU")
    if hvd.rank() != 0:
        logging.set_verbosity(logging.ERROR)

    train_ds = data.make_split(FLAGS.data_dir, "train", FLAGS.batch_size, shard=(hvd.size(), hvd.rank()))
    valid_ds = data.make_split(FLAGS.data_dir, "valid", FLAGS.batch_size, shard=(hvd.size(), hvd.rank()))

    model = encoder.build_classifier(num_labels=2)
    model(next(iter(train_ds))[0])  # create variables
    encoder.load_encoder_weights(model, FLAGS.encoder_weights)
    hvd.broadcast_variables(model.variables, root_rank=0)

    ckpt = tf.train.Checkpoint(model=model)
    manager = tf.train.CheckpointManager(ckpt, os.path.join(FLAGS.model_dir, "ckpt"), max_to_keep=2)

    # ---- stage 1: frozen encoder
    model.encoder.trainable = False
    opt = keras.optimizers.Adam(FLAGS.lr * hvd.size())
    training.fit(model, opt, train_ds, valid_ds, FLAGS.stage1_epochs, FLAGS.patience,
                 manager if hvd.rank() == 0 else None, tag="stage1")

    # ---- stage 2: thaw the top layers, new optimizer
    model.encoder.trainable = True
    for layer in model.encoder.blocks[:-FLAGS.unfreeze_layers]:
        layer.trainable = False
    opt = keras.optimizers.Adam(FLAGS.ft_lr)
    training.fit(model, opt, train_ds, valid_ds, FLAGS.stage2_epochs, FLAGS.patience,
                 manager if hvd.rank() == 0 else None, tag="stage2")

    final = evaluation.evaluate(model, valid_ds)
    if hvd.rank() == 0:
        model.save_weights(os.path.join(FLAGS.model_dir, "final.weights.h5"))
        logging.info("final valid: %s", final)


if __name__ == "__main__":
    app.run(main)
