"""Fine-tune a tiny encoder-decoder summariser (pegasus-lite) with Keras 3 on several workers.

    horovodrun -np 4 python finetune.py hparams/xsum_small.json
"""
import dataclasses
import json
import os
import sys

import numpy as np
import tensorflow as tf
import keras
import horovod.tensorflow.keras as hvd


@dataclasses.dataclass
class HParams:
    data_npz: str = "data/xsum_ids.npz"
    vocab_size: int = 8000
    d_model: int = 256
    num_heads: int = 4
    batch_size: int = 32
    learning_rate: float = 1e-4
    warmup_epochs: int = 1
    epochs: int = 10
    label_smoothing: float = 0.1
    output_dir: str = "runs/pegasus_lite"
    pretrained: str = ""

    @classmethod
    def from_json(cls, path):
        with open(path) as f:
            return cls(**json.load(f))


def encoder_decoder(hp):
    src = keras.Input((None,), dtype="int32")
    tgt = keras.Input((None,), dtype="int32")
    emb = keras.layers.Embedding(hp.vocab_size, hp.d_model)
    pos = keras.layers.Embedding(1024, hp.d_model)

    def embed(x):
        return emb(x) + pos(keras.ops.arange(keras.ops.shape(x)[1]))

    mem = embed(src)
    mem = keras.layers.LayerNormalization()(
        mem + keras.layers.MultiHeadAttention(hp.num_heads, hp.d_model // hp.num_heads)(mem, mem))
    h = embed(tgt)
    h = keras.layers.LayerNormalization()(
        h + keras.layers.MultiHeadAttention(hp.num_heads, hp.d_model // hp.num_heads)(h, h, use_causal_mask=True))
    h = keras.layers.LayerNormalization()(
        h + keras.layers.MultiHeadAttention(hp.num_heads, hp.d_model // hp.num_heads)(h, mem))
    return keras.Model([src, tgt], keras.layers.Dense(hp.vocab_size)(h))


def make_ds(src, tgt, batch, shuffle):
    ds = tf.data.Dataset.from_tensor_slices(((src, tgt[:, :-1]), tgt[:, 1:]))
    if shuffle:
        ds = ds.shuffle(len(src), reshuffle_each_iteration=True)
    return ds.batch(batch, drop_remainder=shuffle).prefetch(tf.data.AUTOTUNE)


def smoothed_ce(vocab, eps):
    def loss(y, logits):
        y = tf.cast(y, tf.int32)
        mask = tf.cast(y != 0, tf.float32)
        ce = keras.losses.categorical_crossentropy(tf.one_hot(y, vocab), logits, from_logits=True,
                                                   label_smoothing=eps)
        return tf.reduce_sum(ce * mask) / tf.maximum(tf.reduce_sum(mask), 1.0)
    return loss


def finetune(hp):
    hvd.init()
    blob = np.load(hp.data_npz)
    train = make_ds(blob["train_src"], blob["train_tgt"], hp.batch_size, shuffle=True)
    valid = make_ds(blob["valid_src"], blob["valid_tgt"], hp.batch_size, shuffle=False)
    steps = len(blob["train_src"]) // hp.batch_size

    model = encoder_decoder(hp)
    if hp.pretrained:
        model.load_weights(hp.pretrained)
    scaled_lr = hp.learning_rate * hvd.size()
    opt = hvd.DistributedOptimizer(keras.optimizers.AdamW(scaled_lr, weight_decay=0.01))
    model.compile(opt, loss=smoothed_ce(hp.vocab_size, hp.label_smoothing))

    cbs = [hvd.callbacks.BroadcastGlobalVariablesCallback(0),
           hvd.callbacks.MetricAverageCallback(),
           hvd.callbacks.LearningRateWarmupCallback(initial_lr=scaled_lr, warmup_epochs=hp.warmup_epochs,
                                                    steps_per_epoch=steps, verbose=0)]
    if hvd.rank() == 0:
        os.makedirs(hp.output_dir, exist_ok=True)
        cbs.append(keras.callbacks.ModelCheckpoint(os.path.join(hp.output_dir, "epoch{epoch:02d}.weights.h5"),
                                                   save_weights_only=True))
        cbs.append(keras.callbacks.TensorBoard(os.path.join(hp.output_dir, "tb")))
    hist = model.fit(train.repeat(), steps_per_epoch=steps, epochs=hp.epochs, validation_data=valid,
                     callbacks=cbs, verbose=1 if hvd.rank() == 0 else 0)
    return hist.history


if __name__ == "__main__":
    hp = HParams.from_json(sys.argv[1]) if len(sys.argv) > 1 else HParams()
    history = finetune(hp)
    if hvd.rank() == 0:
        print(json.dumps({k: [float(x) for x in v] for k, v in history.items()}, indent=1))
