# DeepLabV3-lite on Pascal VOC tfrecords, Keras 3 + horovod
# usage: horovodrun -np 4 python train.py --tfrecords /data/voc_tfr --epochs 60
import argparse
import glob
import os

import tensorflow as tf
import keras
from keras import layers
import horovod.tensorflow.keras as hvd

NUM_CLASSES = 21
CROP = 320


def parse_args():
    ap = argparse.ArgumentParser()
    ap.add_argument('--tfrecords', default='/data/voc_tfr')
    ap.add_argument('--epochs', type=int, default=60)
    ap.add_argument('--batch', type=int, default=8)
    ap.add_argument('--lr', type=float, default=7e-4)
    ap.add_argument('--logdir', default='logs/deeplab')
    return ap.parse_args()


def decode(record):
    feats = tf.io.parse_single_example(record, {
        'image': tf.io.FixedLenFeature([], tf.string),
        'label': tf.io.FixedLenFeature([], tf.string)})
    img = tf.image.resize(tf.io.decode_jpeg(feats['image'], 3), (CROP, CROP)) / 127.5 - 1.0
    lab = tf.image.resize(tf.io.decode_png(feats['label'], 1), (CROP, CROP), method='nearest')
    return img, tf.cast(lab[..., 0], tf.int32)


def make_dataset(pattern, batch, training):
    files = sorted(glob.glob(pattern))
    ds = tf.data.TFRecordDataset(files, num_parallel_reads=4)
    ds = ds.shard(hvd.size(), hvd.rank())
    if training:
        ds = ds.shuffle(1024).repeat()
    ds = ds.map(decode, num_parallel_calls=tf.data.AUTOTUNE)
    return ds.batch(batch, drop_remainder=training).prefetch(tf.data.AUTOTUNE)


def aspp(x, filters=128):
    branches = [layers.Conv2D(filters, 1, padding='same', activation='relu')(x)]
    for rate in (6, 12, 18):
        branches.append(layers.Conv2D(filters, 3, padding='same', dilation_rate=rate, activation='relu')(x))
    pooled = layers.GlobalAveragePooling2D(keepdims=True)(x)
    pooled = layers.Conv2D(filters, 1, activation='relu')(pooled)
    pooled = layers.UpSampling2D(size=(x.shape[1], x.shape[2]), interpolation='bilinear')(pooled)
    branches.append(pooled)
    return layers.Conv2D(filters, 1, activation='relu')(layers.Concatenate()(branches))


class DeepLab(keras.Model):
    """Functional graph wrapped in a subclass so that train_step can ignore the void label."""

    def __init__(self, **kwargs):
        inp = keras.Input((CROP, CROP, 3))
        x = inp
        for f in (32, 64, 128, 256):
            x = layers.Conv2D(f, 3, strides=2, padding='same', activation='relu')(x)
            x = layers.BatchNormalization()(x)
        x = aspp(x)
        x = layers.UpSampling2D(16, interpolation='bilinear')(x)
        out = layers.Conv2D(NUM_CLASSES, 1)(x)
        super().__init__(inputs=inp, outputs=out, **kwargs)

    def train_step(self, data):
        x, y = data
        weight = tf.cast(y != 255, tf.float32)
        y = tf.where(y == 255, 0, y)
        with tf.GradientTape() as tape:
            logits = self(x, training=True)
            loss = self.compute_loss(x=x, y=y, y_pred=logits, sample_weight=weight)
        grads = tape.gradient(loss, self.trainable_variables)
        self.optimizer.apply_gradients(zip(grads, self.trainable_variables))
        for m in self.metrics:
            if m.name == 'loss':
                m.update_state(loss)
            else:
                m.update_state(y, logits, sample_weight=weight)
        return {m.name: m.result() for m in self.metrics}

    def test_step(self, data):
        x, y = data
        weight = tf.cast(y != 255, tf.float32)
        y = tf.where(y == 255, 0, y)
        logits = self(x, training=False)
        loss = self.compute_loss(x=x, y=y, y_pred=logits, sample_weight=weight)
        for m in self.metrics:
            if m.name == 'loss':
                m.update_state(loss)
            else:
                m.update_state(y, logits, sample_weight=weight)
        return {m.name: m.result() for m in self.metrics}


def main():
    args = parse_args()
    hvd.init()
    gpus = tf.config.list_physical_devices('GPU')
    for g in gpus:
        tf.config.experimental.set_memory_growth(g, True)
    if gpus:
        tf.config.set_visible_devices(gpus[hvd.local_rank()], 'GPU')

    train_ds = make_dataset(os.path.join(args.tfrecords, 'train-*.tfrecord'), args.batch, True)
    val_ds = make_dataset(os.path.join(args.tfrecords, 'val-*.tfrecord'), args.batch, False)
    n_train = 10582  # SBD-augmented train_aug

    model = DeepLab(name='deeplabv3_lite')
    schedule = keras.optimizers.schedules.PolynomialDecay(
        args.lr * hvd.size(), args.epochs * n_train // (args.batch * hvd.size()), end_learning_rate=1e-6, power=0.9)
    model.compile(optimizer=keras.optimizers.Adam(schedule),
                  loss=keras.losses.SparseCategoricalCrossentropy(from_logits=True),
                  metrics=[keras.metrics.MeanIoU(NUM_CLASSES, sparse_y_pred=False, name='miou')])

    callbacks = [hvd.callbacks.BroadcastGlobalVariablesCallback(0)]
    if hvd.rank() == 0:
        callbacks.append(keras.callbacks.ModelCheckpoint(os.path.join(args.logdir, 'deeplab_best.weights.h5'),
                                                         monitor='val_miou', mode='max',
                                                         save_best_only=True, save_weights_only=True))
        callbacks.append(keras.callbacks.TensorBoard(args.logdir))
    model.fit(train_ds, epochs=args.epochs, steps_per_epoch=n_train // (args.batch * hvd.size()),
              validation_data=val_ds, callbacks=callbacks, verbose=1 if hvd.rank() == 0 else 0)


if __name__ == '__main__':
    main()
