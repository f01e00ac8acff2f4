# IMDB sentiment, small transformer encoder, Keras 3 + horovod.keras.
# Every worker sees a differently shuffled stream and runs 1/size of the
# steps of an epoch (the Horovod examples' way); the test set is evaluated
# in full at the end.
import glob
import os
import re

import numpy as np
import tensorflow as tf
import keras
from keras import layers
import horovod.keras as hvd

VOCAB = 20000
MAXLEN = 256
BATCH = 64
EPOCHS = 12
BASE_LR = 2e-4
CKPT_DIR = os.environ.get("CKPT_DIR", "ckpt_imdb")

hvd.init()
gpus = tf.config.list_physical_devices("GPU")
if gpus:
    tf.config.set_visible_devices(gpus[hvd.local_rank()], "GPU")
    tf.config.experimental.set_memory_growth(gpus[hvd.local_rank()], True)

(x_train, y_train), (x_test, y_test) = keras.datasets.imdb.load_data(num_words=VOCAB)
x_train = keras.utils.pad_sequences(x_train, maxlen=MAXLEN)
x_test = keras.utils.pad_sequences(x_test, maxlen=MAXLEN)

train_ds = (tf.data.Dataset.from_tensor_slices((x_train, y_train))
            .repeat()
            .shuffle(25000)
            .batch(BATCH)
            .prefetch(tf.data.AUTOTUNE))
steps_per_epoch = len(x_train) // (BATCH * hvd.size())


class TokenAndPosition(layers.Layer):
    def __init__(self, maxlen, vocab, dim, **kw):
        super().__init__(**kw)
        self.tok = layers.Embedding(vocab, dim)
        self.pos = layers.Embedding(maxlen, dim)

    def call(self, x):
        positions = keras.ops.arange(0, keras.ops.shape(x)[-1])
        return self.tok(x) + self.pos(positions)


def encoder_block(x, dim=128, heads=4, ff=256, drop=0.1):
    attn = layers.MultiHeadAttention(heads, dim // heads)(x, x)
    x = layers.LayerNormalization(epsilon=1e-6)(x + layers.Dropout(drop)(attn))
    f = layers.Dense(ff, activation="gelu")(x)
    f = layers.Dense(dim)(f)
    return layers.LayerNormalization(epsilon=1e-6)(x + layers.Dropout(drop)(f))


def make_model():
    inp = keras.Input((MAXLEN,), dtype="int32")
    x = TokenAndPosition(MAXLEN, VOCAB, 128)(inp)
    x = encoder_block(x)
    x = encoder_block(x)
    x = layers.GlobalAveragePooling1D()(x)
    x = layers.Dropout(0.2)(x)
    out = layers.Dense(1, activation="sigmoid")(x)
    return keras.Model(inp, out)


model = make_model()
opt = keras.optimizers.AdamW(learning_rate=BASE_LR * hvd.size(), weight_decay=1e-2)
model.compile(optimizer=hvd.DistributedOptimizer(opt),
              loss="binary_crossentropy", metrics=["accuracy"])

# resume: every rank reads the same newest weights file
initial_epoch = 0
ckpts = sorted(glob.glob(os.path.join(CKPT_DIR, "imdb-*.weights.h5")))
if ckpts:
    model.load_weights(ckpts[-1])
    initial_epoch = int(re.search(r"imdb-(\d+)", ckpts[-1]).group(1))

callbacks = [
    hvd.callbacks.BroadcastGlobalVariablesCallback(0),
    hvd.callbacks.LearningRateWarmupCallback(initial_lr=BASE_LR * hvd.size(), warmup_epochs=2),
]
if hvd.rank() == 0:
    os.makedirs(CKPT_DIR, exist_ok=True)
    callbacks.append(keras.callbacks.ModelCheckpoint(
        os.path.join(CKPT_DIR, "imdb-{epoch:03d}.weights.h5"), save_weights_only=True))

model.fit(train_ds,
          steps_per_epoch=steps_per_epoch,
          epochs=EPOCHS,
          initial_epoch=initial_epoch,
          callbacks=callbacks,
          verbose=2 if hvd.rank() == 0 else 0)

# same weights on every rank after training, so every rank gets the same numbers
test_loss, test_acc = model.evaluate(x_test, y_test, batch_size=256, verbose=0)
if hvd.rank() == 0:
    print(f"test loss {test_loss:.4f}  test accuracy {test_acc:.4f}")
    model.save(os.path.join(CKPT_DIR, "imdb_final.keras"))
