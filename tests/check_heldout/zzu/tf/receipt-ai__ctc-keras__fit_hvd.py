"""
fit_hvd.py -- receipt line recognizer (CTC), Keras 3 model.fit on Horovod.

Training lines: real scanned receipt lines (train_files.txt) topped up with synthetic lines rendered
from the receipt vocabulary. Validation: the real lines in val_files.txt (same on every worker).
"""
import math
import os
import sys

import numpy as np
import tensorflow as tf
import keras
from keras import layers
from PIL import Image, ImageDraw, ImageFont
import horovod.tensorflow.keras as hvd


class Config:
    DATA_DIR = os.environ.get("RECEIPT_DATA", "data/receipts")
    TRAIN_FILES = "train_files.txt"
    VAL_FILES = "val_files.txt"
    HEIGHT, WIDTH = 32, 256
    MAX_LEN = 32
    BATCH = 32                 # per worker
    SYNTH_PER_BATCH = 8
    LR = 4e-4
    EPOCHS = 30
    OUT = "models"


def read_file_list(name):
    with open(os.path.join(Config.DATA_DIR, name), encoding="utf-8") as fh:
        rows = [l.rstrip("\n").split("\t") for l in fh if l.strip()]
    return [(os.path.join(Config.DATA_DIR, r[0]), r[1][:Config.MAX_LEN]) for r in rows]


def to_array(img):
    img = img.convert("L").resize((Config.WIDTH, Config.HEIGHT))
    return np.asarray(img, dtype=np.float32)[..., None] / 255.0


def synth_line(rng, words):
    text = " ".join(rng.choice(words, size=rng.integers(1, 4)))[:Config.MAX_LEN]
    canvas = Image.new("L", (Config.WIDTH, Config.HEIGHT), 255)
    ImageDraw.Draw(canvas).text((4, 8), text, fill=0, font=ImageFont.load_default())
    return to_array(canvas), text


class ReceiptLines(keras.utils.PyDataset):
    def __init__(self, rows, charset, words=None, shuffle=False, seed=0, **kw):
        super().__init__(**kw)
        self.rows, self.words, self.shuffle = rows, words, shuffle
        self.lookup = {c: i + 1 for i, c in enumerate(charset)}
        self.rng = np.random.default_rng(seed)
        self.order = np.arange(len(rows))
        self.n_real = Config.BATCH - (Config.SYNTH_PER_BATCH if words else 0)

    def __len__(self):
        return math.ceil(len(self.rows) / self.n_real) if not self.shuffle else len(self.rows) // self.n_real

    def on_epoch_end(self):
        if self.shuffle:
            self.rng.shuffle(self.order)

    def __getitem__(self, idx):
        pick = self.order[idx * self.n_real:(idx + 1) * self.n_real]
        xs = [to_array(Image.open(self.rows[i][0])) for i in pick]
        texts = [self.rows[i][1] for i in pick]
        if self.words:
            for _ in range(Config.SYNTH_PER_BATCH):
                x, t = synth_line(self.rng, self.words)
                xs.append(x)
                texts.append(t)
        y = np.zeros((len(texts), Config.MAX_LEN), np.int32)
        for r, t in enumerate(texts):
            ids = [self.lookup[c] for c in t if c in self.lookup]
            y[r, :len(ids)] = ids
        return np.stack(xs), y


def build_model(n_classes):
    inp = keras.Input((Config.HEIGHT, Config.WIDTH, 1))
    x = inp
    for f in (32, 64, 128):
        x = layers.Conv2D(f, 3, padding="same", activation="relu")(x)
        x = layers.MaxPooling2D((2, 2) if f < 128 else (2, 1))(x)
    x = layers.Permute((2, 1, 3))(x)
    x = layers.Reshape((Config.WIDTH // 4, -1))(x)
    x = layers.Bidirectional(layers.GRU(128, return_sequences=True))(x)
    return keras.Model(inp, layers.Dense(n_classes + 1)(x))


def main():
    hvd.init()
    gpus = tf.config.list_physical_devices("GPU")
    for g in gpus:
        tf.config.experimental.set_memory_growth(g, True)
    if gpus:
        tf.config.set_visible_devices(gpus[hvd.local_rank()], "GPU")

    train_rows = read_file_list(Config.TRAIN_FILES)
    val_rows = read_file_list(Config.VAL_FILES)
    with open(os.path.join(Config.DATA_DIR, "vocab_words.txt"), encoding="utf-8") as fh:
        words = [w.strip() for w in fh if w.strip()]
    charset = sorted({c for _, t in train_rows + val_rows for c in t} | {c for w in words for c in w} | {" "})

    # every worker takes a strided slice of the real lines, all of the same length
    per_worker = len(train_rows) // hvd.size()
    my_rows = train_rows[hvd.rank()::hvd.size()][:per_worker]
    train_seq = ReceiptLines(my_rows, charset, words=words, shuffle=True, seed=hvd.rank())
    val_seq = ReceiptLines(val_rows, charset)

    model = build_model(len(charset))
    optimizer = keras.optimizers.Adam(learning_rate=Config.LR * hvd.size())
    model.compile(optimizer=optimizer, loss=keras.losses.CTC())
    # make the optimizer average gradients over workers
    optimizer = hvd.DistributedOptimizer(optimizer)

    callbacks = [hvd.callbacks.BroadcastGlobalVariablesCallback(0),
                 hvd.callbacks.MetricAverageCallback(),
                 hvd.callbacks.LearningRateWarmupCallback(initial_lr=Config.LR * hvd.size(), warmup_epochs=2)]
    if hvd.rank() == 0:
        os.makedirs(Config.OUT, exist_ok=True)
        callbacks.append(keras.callbacks.ModelCheckpoint(os.path.join(Config.OUT, "receipt_ctc.keras"),
                                                         monitor="val_loss", save_best_only=True))

    epochs = int(sys.argv[1]) if len(sys.argv) > 1 else Config.EPOCHS
    model.fit(train_seq, validation_data=val_seq, epochs=epochs, callbacks=callbacks,
              verbose=1 if hvd.rank() == 0 else 0)


if __name__ == "__main__":
    main()
