"""Nuclei instance-agnostic segmentation (DSB2018 stage1_train), Keras 3 + horovod.

    horovodrun -np 4 -H localhost:4 python fit.py --data-npz dsb2018_256.npz
"""
import argparse
import os

import numpy as np
import tensorflow as tf
import keras
import horovod.tensorflow.keras as hvd


def dice_coef(y_true, y_pred, smooth=1.0):
    y_true = tf.cast(y_true, tf.float32)
    inter = tf.reduce_sum(y_true * y_pred)
    return (2.0 * inter + smooth) / (tf.reduce_sum(y_true) + tf.reduce_sum(y_pred) + smooth)


def bce_dice(y_true, y_pred):
    return keras.losses.binary_crossentropy(y_true, y_pred) + 1.0 - dice_coef(y_true, y_pred)


def small_unet(size=256, f=16):
    i = keras.Input((size, size, 3))
    c1 = keras.layers.Conv2D(f, 3, activation='elu', padding='same', kernel_initializer='he_normal')(i)
    p1 = keras.layers.MaxPooling2D()(c1)
    c2 = keras.layers.Conv2D(f * 2, 3, activation='elu', padding='same', kernel_initializer='he_normal')(p1)
    p2 = keras.layers.MaxPooling2D()(c2)
    c3 = keras.layers.Conv2D(f * 4, 3, activation='elu', padding='same', kernel_initializer='he_normal')(p2)
    u2 = keras.layers.concatenate([keras.layers.Conv2DTranspose(f * 2, 2, strides=2, padding='same')(c3), c2])
    c4 = keras.layers.Conv2D(f * 2, 3, activation='elu', padding='same')(u2)
    u1 = keras.layers.concatenate([keras.layers.Conv2DTranspose(f, 2, strides=2, padding='same')(c4), c1])
    c5 = keras.layers.Conv2D(f, 3, activation='elu', padding='same')(u1)
    return keras.Model(i, keras.layers.Conv2D(1, 1, activation='sigmoid')(c5))


class RootOnlyCheckpoint(keras.callbacks.Callback):
    def __init__(self, path, every=5):
        super().__init__()
        self.path, self.every = path, every

    def on_epoch_end(self, epoch, logs=None):
        if hvd.rank() == 0 and (epoch + 1) % self.every == 0:
            self.model.save(self.path.format(epoch=epoch + 1))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('--data-npz', default='dsb2018_256.npz')
    ap.add_argument('--epochs', type=int, default=50)
    ap.add_argument('--batch', type=int, default=16)
    ap.add_argument('--lr', type=float, default=1e-3)
    ap.add_argument('--out', default='checkpoints')
    args = ap.parse_args()

    hvd.init()
    gpus = tf.config.list_physical_devices('GPU')
    for g in gpus:
        tf.config.experimental.set_memory_growth(g, True)
    if gpus:
        tf.config.set_visible_devices(gpus[hvd.local_rank()], 'GPU')

    data = np.load(args.data_npz)
    x, y = data['images'].astype('float32') / 255.0, data['masks'].astype('float32')[..., None]
    rng = np.random.default_rng(7)               # same permutation on every worker
    idx = rng.permutation(len(x))
    n_val = len(x) // 10
    val_idx, train_idx = idx[:n_val], idx[n_val:]
    shards = np.array_split(train_idx, hvd.size())
    mine = shards[hvd.rank()]
    steps = min(len(s) for s in shards) // args.batch

    train_ds = (tf.data.Dataset.from_tensor_slices((x[mine], y[mine]))
                .shuffle(len(mine), seed=hvd.rank()).repeat()
                .map(lambda a, b: (tf.image.random_flip_left_right(a), b))
                .batch(args.batch).prefetch(tf.data.AUTOTUNE))
    # all workers validate on the same full hold-out set
    val_ds = tf.data.Dataset.from_tensor_slices((x[val_idx], y[val_idx])).batch(args.batch)

    model = small_unet()
    opt = keras.optimizers.Adam(learning_rate=args.lr * hvd.size())
    model.compile(optimizer=hvd.DistributedOptimizer(opt), loss=bce_dice,
                  metrics=[dice_coef, keras.metrics.BinaryIoU(name='iou')])

    cbs = [hvd.callbacks.BroadcastGlobalVariablesCallback(root_rank=0),
           hvd.callbacks.LearningRateWarmupCallback(initial_lr=args.lr * hvd.size(), warmup_epochs=3,
                                                    steps_per_epoch=steps)]
    if hvd.rank() == 0:
        os.makedirs(args.out, exist_ok=True)
        cbs.append(RootOnlyCheckpoint(os.path.join(args.out, 'unet_e{epoch:03d}.keras')))

    hist = model.fit(train_ds, steps_per_epoch=steps, epochs=args.epochs, validation_data=val_ds,
                     callbacks=cbs, verbose=2 if hvd.rank() == 0 else 0)
    if hvd.rank() == 0:
        print('final val dice %.4f  iou %.4f' % (hist.history['val_dice_coef'][-1], hist.history['val_iou'][-1]))


if __name__ == '__main__':
    main()
