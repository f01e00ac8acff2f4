"""Stateful char LSTM (Keras 3) with horovod.

    horovodrun -np 4 python train.py --text data/shakespeare.txt
"""
import os
import math

import numpy as np
import keras
import horovod.tensorflow.keras as hvd

from kcharlm.hvd_setup import init_horovod
from kcharlm.config import parse_args
from kcharlm.data import load_text, stateful_arrays
from kcharlm.model import build_model, sample_text
from kcharlm.callbacks import ResetStatesCallback, PerplexityLogger


def main():
    args = parse_args()
    init_horovod()

    vocab, ids = load_text(args.text)
    n_val = len(ids) // 10
    x_tr, y_tr = stateful_arrays(ids[:-n_val], args.batch_size, args.seq_len, hvd.rank(), hvd.size())
    x_va, y_va = stateful_arrays(ids[-n_val:], args.batch_size, args.seq_len, hvd.rank(), hvd.size())

    model = build_model(len(vocab), args.batch_size, args.seq_len, args.units, args.cell)
    opt = keras.optimizers.Adam(learning_rate=args.lr * hvd.size(), clipnorm=args.clipnorm)
    opt = hvd.DistributedOptimizer(opt)
    model.compile(optimizer=opt,
                  loss=keras.losses.SparseCategoricalCrossentropy(from_logits=True))

    callbacks = [
        hvd.callbacks.BroadcastGlobalVariablesCallback(0),
        hvd.callbacks.MetricAverageCallback(),
        ResetStatesCallback(),
        PerplexityLogger(),
    ]
    if hvd.rank() == 0:
        os.makedirs(args.ckpt_dir, exist_ok=True)
        callbacks.append(keras.callbacks.ModelCheckpoint(
            os.path.join(args.ckpt_dir, 'charlm-{epoch:02d}.weights.h5'), save_weights_only=True))

    model.fit(x_tr, y_tr, batch_size=args.batch_size, epochs=args.epochs, shuffle=False,
              validation_data=(x_va, y_va), callbacks=callbacks, verbose=2 if hvd.rank() == 0 else 0)

    if hvd.rank() == 0:
        print(sample_text(model, vocab, args.units, args.cell, start='\n', n=args.sample_len))


if __name__ == '__main__':
    main()
