#!/usr/bin/env python
# Gradual magnitude pruning of a LeNet-300-100 on MNIST, without tfmot (which does not support Keras 3 yet).
# Masks are recomputed on a polynomial schedule at epoch start and re-applied after every batch.
import argparse
import os

import numpy as np
import tensorflow as tf
import keras
import horovod.tensorflow.keras as hvd

parser = argparse.ArgumentParser()
parser.add_argument('--epochs', type=int, default=24)
parser.add_argument('--batch-size', type=int, default=100)
parser.add_argument('--lr', type=float, default=0.05)
parser.add_argument('--warmup-epochs', type=int, default=2)
parser.add_argument('--final-sparsity', type=float, default=0.95)
parser.add_argument('--begin-epoch', type=int, default=4)
parser.add_argument('--end-epoch', type=int, default=18)
parser.add_argument('--export', default='export/lenet300_sparse')
args = parser.parse_args()

hvd.init()
gpus = tf.config.experimental.list_physical_devices('GPU')
for gpu in gpus:
    tf.config.experimental.set_memory_growth(gpu, True)
if gpus:
    tf.config.experimental.set_visible_devices(gpus[hvd.local_rank()], 'GPU')

(x_train, y_train), (x_test, y_test) = keras.datasets.mnist.load_data()
x_train = x_train.reshape(-1, 784).astype('float32') / 255.0
x_test = x_test.reshape(-1, 784).astype('float32') / 255.0


def polynomial_sparsity(epoch, final, begin, end, power=3):
    if epoch < begin:
        return 0.0
    t = min(1.0, (epoch - begin) / float(end - begin))
    return final * (1.0 - (1.0 - t) ** power)


class MagnitudePruning(keras.callbacks.Callback):
    def __init__(self, final, begin, end):
        super().__init__()
        self.final, self.begin, self.end = final, begin, end
        self.masks = {}

    def _kernels(self):
        return [l.kernel for l in self.model.layers if isinstance(l, keras.layers.Dense)]

    def on_epoch_begin(self, epoch, logs=None):
        s = polynomial_sparsity(epoch, self.final, self.begin, self.end)
        for k in self._kernels():
            w = np.abs(k.numpy())
            thr = np.quantile(w, s) if s > 0 else -1.0
            self.masks[k.path] = (w > thr).astype('float32')
        self.sparsity = s

    def on_train_batch_end(self, batch, logs=None):
        for k in self._kernels():
            k.assign(k * self.masks[k.path])

    def on_epoch_end(self, epoch, logs=None):
        if logs is not None:
            logs['sparsity'] = self.sparsity


model = keras.Sequential([
    keras.Input((784,)),
    keras.layers.Dense(300, activation='relu'),
    keras.layers.Dense(100, activation='relu'),
    keras.layers.Dense(10),
])

scaled_lr = args.lr * hvd.size()
opt = keras.optimizers.SGD(learning_rate=scaled_lr, momentum=0.9)
opt = hvd.DistributedOptimizer(opt)
model.compile(optimizer=opt,
              loss=keras.losses.SparseCategoricalCrossentropy(from_logits=True),
              metrics=['accuracy'])

pruning = MagnitudePruning(args.final_sparsity, args.begin_epoch, args.end_epoch)
callbacks = [
    hvd.callbacks.BroadcastGlobalVariablesCallback(0),
    hvd.callbacks.MetricAverageCallback(),
    hvd.callbacks.LearningRateWarmupCallback(warmup_epochs=args.warmup_epochs, verbose=1),
    pruning,
]
if hvd.rank() == 0:
    callbacks.append(keras.callbacks.ModelCheckpoint('./checkpoint-{epoch}.weights.h5', save_weights_only=True))

model.fit(x_train, y_train,
          batch_size=args.batch_size,
          epochs=args.epochs,
          callbacks=callbacks,
          validation_data=(x_test, y_test),
          verbose=1 if hvd.rank() == 0 else 0)

if hvd.rank() == 0:
    os.makedirs(os.path.dirname(args.export), exist_ok=True)
    model.save(args.export + '.keras')
    np.savez_compressed(args.export + '_masks.npz', **{k.replace('/', '_'): m for k, m in pruning.masks.items()})
    loss, acc = model.evaluate(x_test, y_test, verbose=0)
    print('test accuracy %.4f at sparsity %.3f' % (acc, pruning.sparsity))
