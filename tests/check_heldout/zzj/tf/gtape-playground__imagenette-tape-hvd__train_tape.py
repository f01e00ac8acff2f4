"""Imagenette (10 ImageNet classes) with a custom GradientTape loop on Horovod.

Folder layout: <data>/{train,val}/<wnid>/*.JPEG
    horovodrun -np 4 python train_tape.py --data ~/data/imagenette2-320
"""
import argparse
import glob
import os
import time

import keras
import numpy as np
import tensorflow as tf
import horovod.tensorflow as hvd
from tqdm import tqdm

parser = argparse.ArgumentParser()
parser.add_argument('--data', default=os.path.expanduser('~/data/imagenette2-320'))
parser.add_argument('--img-size', type=int, default=160)
parser.add_argument('--batch-size', type=int, default=64)
parser.add_argument('--epochs', type=int, default=20)
parser.add_argument('--lr', type=float, default=1e-3)
parser.add_argument('--arch', default='mobilenetv2', choices=['mobilenetv2', 'resnet50', 'efficientnetb0'])
parser.add_argument('--ckpt-dir', default='./tf_ckpts')
args = parser.parse_args()

hvd.init()
gpus = tf.config.list_physical_devices('GPU')
for gpu in gpus:
    tf.config.experimental.set_memory_growth(gpu, True)
if gpus:
    tf.config.set_visible_devices(gpus[hvd.local_rank()], 'GPU')

classes = sorted(os.listdir(os.path.join(args.data, 'train')))


def make_dataset(split, training):
    files = sorted(glob.glob(os.path.join(args.data, split, '*', '*.JPEG')))
    labels = [classes.index(os.path.basename(os.path.dirname(f))) for f in files]
    ds = tf.data.Dataset.from_tensor_slices((files, labels)).shard(hvd.size(), hvd.rank())

    def load(path, label):
        img = tf.io.decode_jpeg(tf.io.read_file(path), channels=3)
        img = tf.image.resize(img, [args.img_size, args.img_size])
        if training:
            img = tf.image.random_flip_left_right(img)
        return img / 127.5 - 1.0, label

    if training:
        ds = ds.shuffle(4096, reshuffle_each_iteration=True)
    return ds.map(load, num_parallel_calls=tf.data.AUTOTUNE).batch(args.batch_size).prefetch(2), len(files)


train_ds, n_train = make_dataset('train', True)
val_ds, n_val = make_dataset('val', False)
steps_per_epoch = n_train // (args.batch_size * hvd.size())

backbones = {
    'mobilenetv2': keras.applications.MobileNetV2,
    'resnet50': keras.applications.ResNet50,
    'efficientnetb0': keras.applications.EfficientNetB0,
}
base = backbones[args.arch](include_top=False, weights=None, pooling='avg',
                            input_shape=(args.img_size, args.img_size, 3))
model = keras.Sequential([base, keras.layers.Dropout(0.2), keras.layers.Dense(len(classes))])
loss_fn = keras.losses.SparseCategoricalCrossentropy(from_logits=True)
optimizer = keras.optimizers.Adam(learning_rate=args.lr)

checkpoint = tf.train.Checkpoint(model=model, optimizer=optimizer)
manager = tf.train.CheckpointManager(checkpoint, args.ckpt_dir, max_to_keep=3)


@tf.function
def train_step(images, labels, first_batch):
    with tf.GradientTape() as tape:
        logits = model(images, training=True)
        loss = loss_fn(labels, logits)
        # average the loss over all workers so that every worker optimises the same objective
        loss = hvd.allreduce(loss)
    grads = tape.gradient(loss, model.trainable_variables)
    optimizer.apply_gradients(zip(grads, model.trainable_variables))
    if first_batch:
        hvd.broadcast_variables(model.variables, root_rank=0)
        hvd.broadcast_variables(optimizer.variables, root_rank=0)
    return loss


@tf.function
def eval_step(images, labels):
    logits = model(images, training=False)
    correct = tf.reduce_sum(tf.cast(tf.equal(tf.argmax(logits, 1, output_type=tf.int32), labels), tf.float32))
    return correct, tf.cast(tf.shape(labels)[0], tf.float32)


for epoch in range(args.epochs):
    start = time.time()
    train_iter = train_ds.take(steps_per_epoch)
    bar = tqdm(train_iter, total=steps_per_epoch, disable=hvd.rank() != 0, desc='epoch %d' % epoch)
    for step, (images, labels) in enumerate(bar):
        loss = train_step(images, labels, epoch == 0 and step == 0)
        if step % 20 == 0:
            bar.set_postfix(loss='%.4f' % loss.numpy())

    correct, total = 0.0, 0.0
    for images, labels in val_ds:
        c, n = eval_step(images, labels)
        correct += c.numpy()
        total += n.numpy()
    totals = hvd.allreduce(np.array([correct, total]), op=hvd.Sum, name='val_totals').numpy()
    if hvd.rank() == 0:
        print('epoch %d  val acc %.4f  (%.1fs)' % (epoch, totals[0] / totals[1], time.time() - start))
        manager.save(checkpoint_number=epoch)
