#!/usr/bin/env python3
"""Entropy sampling on Fashion-MNIST, keras fit + horovod.
Each round: new model -> fit on labeled set -> eval -> score pool -> move top-k to labeled.
"""
import os
import sys
import argparse
import numpy as np
import tensorflow as tf
import keras
import horovod.tensorflow.keras as hvd

ap = argparse.ArgumentParser()
ap.add_argument('--rounds', type=int, default=10)
ap.add_argument('--init_n', type=int, default=1000)
ap.add_argument('--topk', type=int, default=1000)
ap.add_argument('--epochs', type=int, default=5)
ap.add_argument('--batch', type=int, default=128)
ap.add_argument('--lr', type=float, default=0.001)
ap.add_argument('--logdir', default='logs_entropy')
ap.add_argument('--npz', default=None, help='use a local npz instead of keras.datasets')
args = ap.parse_args()

hvd.init()
gpus = tf.config.experimental.list_physical_devices('GPU')
for gpu in gpus:
    tf.config.experimental.set_memory_growth(gpu, True)
if gpus:
    tf.config.experimental.set_visible_devices(gpus[hvd.local_rank()], 'GPU')

if args.npz:
    d = np.load(args.npz)
    x_train, y_train, x_test, y_test = d['x_train'], d['y_train'], d['x_test'], d['y_test']
else:
    (x_train, y_train), (x_test, y_test) = keras.datasets.fashion_mnist.load_data(
        path='fashion-mnist-%d.npz' % hvd.rank())
x_train = (x_train / 255.0).astype('float32')[..., None]
x_test = (x_test / 255.0).astype('float32')[..., None]

np.random.seed(2024)
perm = np.random.permutation(len(x_train))
lab = perm[:args.init_n]
unl = perm[args.init_n:]


def get_model():
    m = keras.Sequential([
        keras.Input(shape=x_train.shape[1:]),
        keras.layers.Conv2D(32, 3, activation='relu'),
        keras.layers.MaxPooling2D(),
        keras.layers.Conv2D(64, 3, activation='relu'),
        keras.layers.MaxPooling2D(),
        keras.layers.Flatten(),
        keras.layers.Dense(128, activation='relu'),
        keras.layers.Dense(10, activation='softmax'),
    ])
    opt = keras.optimizers.Adam(learning_rate=args.lr * hvd.size())
    opt = hvd.DistributedOptimizer(opt)
    m.compile(loss='sparse_categorical_crossentropy', optimizer=opt, metrics=['accuracy'])
    return m


if hvd.rank() == 0:
    os.makedirs(args.logdir, exist_ok=True)
    f_log = open(os.path.join(args.logdir, 'rounds.csv'), 'w')
    f_log.write('round,n_labeled,test_loss,test_acc\n')

for r in range(args.rounds):
    model = get_model()
    callbacks = [hvd.callbacks.MetricAverageCallback()]
    model.fit(x_train[lab], y_train[lab],
              batch_size=args.batch,
              epochs=args.epochs,
              callbacks=callbacks,
              shuffle=True,
              verbose=1 if hvd.rank() == 0 else 0)
    test_loss, test_acc = model.evaluate(x_test, y_test, verbose=0)

    if hvd.rank() == 0:
        f_log.write('%d,%d,%.4f,%.4f\n' % (r, len(lab), test_loss, test_acc))
        f_log.flush()
        model.save(os.path.join(args.logdir, 'model_round%d.keras' % r))
        np.save(os.path.join(args.logdir, 'lab_round%d.npy' % r), lab)

    # entropy of the predictive distribution on the unlabeled pool
    probs = model.predict(x_train[unl], batch_size=1024, verbose=0)
    ent = -np.sum(probs * np.log(probs + 1e-10), axis=1)
    top = np.argsort(ent)[::-1][:args.topk]
    lab = np.concatenate([lab, unl[top]])
    unl = np.delete(unl, top)

if hvd.rank() == 0:
    f_log.close()
