import math
import os

import keras
import horovod.tensorflow.keras as hvd

from . import dist
from .data import make_vectorizer, lm_dataset, count_windows
from .model import gru_lm


def train(cfg):
    dist.init()
    vec = make_vectorizer(cfg.train_path, cfg.vocab_size)
    train_ds = lm_dataset(cfg.train_path, vec, cfg.seq_len, cfg.batch_size, hvd.size(), hvd.rank())
    valid_ds = lm_dataset(cfg.valid_path, vec, cfg.seq_len, cfg.batch_size, hvd.size(), hvd.rank(), training=False)
    steps = count_windows(cfg.train_path, cfg.seq_len) // (cfg.batch_size * hvd.size())
    if cfg.max_steps:
        steps = min(steps, cfg.max_steps)

    model = gru_lm(vec.vocabulary_size(), cfg.emb_dim, cfg.units)
    opt = keras.optimizers.Adam(learning_rate=cfg.learning_rate, clipnorm=cfg.clipnorm)
    model.compile(optimizer=dist.wrap_optimizer(opt),
                  loss=keras.losses.SparseCategoricalCrossentropy(from_logits=True))
    dist.sync_initial_weights(model)

    callbacks = [hvd.callbacks.MetricAverageCallback()]
    if dist.is_chief():
        os.makedirs(cfg.out_dir, exist_ok=True)
        callbacks.append(keras.callbacks.ModelCheckpoint(os.path.join(cfg.out_dir, 'lm.keras'),
                                                         monitor='val_loss', save_best_only=True))
    hist = model.fit(train_ds, steps_per_epoch=steps, epochs=cfg.epochs, validation_data=valid_ds,
                     callbacks=callbacks, verbose=1 if dist.is_chief() else 0)
    if dist.is_chief():
        for e, v in enumerate(hist.history['val_loss']):
            print('epoch %d valid ppl %.2f' % (e, math.exp(v)))
    return hist.history
