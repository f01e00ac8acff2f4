"""Fast-SCNN on Cityscapes - TF2 / keras 3 custom loop, horovod for multi GPU.

    horovodrun -np 4 python train_fastscnn.py --data-dir /datasets/cityscapes/tfrecords
Rank 0 evaluates the whole val set at 1024x2048 with sliding windows; the others go on.
"""
import argparse
import math
import os
import time

import numpy as np
import tensorflow as tf
import keras
from keras import layers
import horovod.tensorflow as hvd

hvd.init()
gpus = tf.config.list_physical_devices('GPU')
for gpu in gpus:
    tf.config.experimental.set_memory_growth(gpu, True)
if gpus:
    tf.config.set_visible_devices(gpus[hvd.local_rank()], 'GPU')

parser = argparse.ArgumentParser()
parser.add_argument('--data-dir', default='/datasets/cityscapes/tfrecords')
parser.add_argument('--num-classes', type=int, default=19)
parser.add_argument('--crop', type=int, nargs=2, default=[768, 768])
parser.add_argument('--batch-size', type=int, default=12)
parser.add_argument('--iters', type=int, default=60000)
parser.add_argument('--warmup-iters', type=int, default=1000)
parser.add_argument('--base-lr', type=float, default=0.045)
parser.add_argument('--eval-interval', type=int, default=2000)
parser.add_argument('--eval-size', type=int, nargs=2, default=[1024, 2048])
parser.add_argument('--window', type=int, nargs=2, default=[768, 768])
parser.add_argument('--model-dir', default='./models/fastscnn')
parser.add_argument('--random', action='store_true', help='random tensors instead of tfrecords')
args = parser.parse_args()

MEAN = tf.constant([0.485, 0.456, 0.406])
STD = tf.constant([0.229, 0.224, 0.225])


# --------------------------------------------------------------------------------------------- data
def decode(rec):
    f = tf.io.parse_single_example(rec, {'img': tf.io.FixedLenFeature([], tf.string),
                                         'lbl': tf.io.FixedLenFeature([], tf.string)})
    img = tf.cast(tf.io.decode_png(f['img'], 3), tf.float32) / 255.
    return (img - MEAN) / STD, tf.cast(tf.io.decode_png(f['lbl'], 1), tf.int32)


def crop_and_flip(img, lbl):
    s = tf.random.uniform([], 0.5, 2.0)
    size = tf.cast(tf.cast(tf.shape(img)[:2], tf.float32) * s, tf.int32)
    img = tf.image.resize(img, size)
    lbl = tf.image.resize(lbl, size, method='nearest')
    img = tf.image.pad_to_bounding_box(img, 0, 0, tf.maximum(size[0], args.crop[0]), tf.maximum(size[1], args.crop[1]))
    lbl = tf.image.pad_to_bounding_box(lbl + 1, 0, 0, tf.maximum(size[0], args.crop[0]),
                                       tf.maximum(size[1], args.crop[1])) - 1   # pad -> -1 (ignored)
    both = tf.image.random_crop(tf.concat([img, tf.cast(lbl, tf.float32)], -1), args.crop + [4])
    both = tf.image.random_flip_left_right(both)
    return both[..., :3], tf.cast(both[..., 3:], tf.int32)


def random_split(n, h, w):
    g = np.random.RandomState(0)
    return tf.data.Dataset.from_tensor_slices((g.randn(n, h, w, 3).astype('float32'),
                                               g.randint(0, args.num_classes, (n, h, w, 1)).astype('int32')))


if args.random:
    train_ds = random_split(32, args.crop[0] + 64, args.crop[1] + 64).shard(hvd.size(), hvd.rank())
    val_ds = random_split(2, args.eval_size[0], args.eval_size[1])
else:
    train_files = tf.data.Dataset.list_files(os.path.join(args.data_dir, 'train-*'), shuffle=False)
    train_ds = tf.data.TFRecordDataset(train_files.shard(hvd.size(), hvd.rank())).map(decode, tf.data.AUTOTUNE)
    val_ds = tf.data.TFRecordDataset(tf.io.gfile.glob(os.path.join(args.data_dir, 'val-*'))).map(decode)
train_ds = (train_ds.shuffle(500).repeat().map(crop_and_flip, tf.data.AUTOTUNE)
            .batch(args.batch_size, drop_remainder=True).prefetch(2))


# --------------------------------------------------------------------------------------------- model
def conv_block(x, f, k=3, s=1, dw=False, act=True):
    if dw:
        x = layers.DepthwiseConv2D(k, s, padding='same', use_bias=False)(x)
        x = layers.BatchNormalization()(x)
        x = layers.ReLU()(x)
        x = layers.Conv2D(f, 1, use_bias=False)(x)
    else:
        x = layers.Conv2D(f, k, s, padding='same', use_bias=False)(x)
    x = layers.BatchNormalization()(x)
    return layers.ReLU()(x) if act else x


def bottleneck(x, f, t, s, n):
    for i in range(n):
        inp = x
        y = conv_block(x, x.shape[-1] * t, 1)
        y = layers.DepthwiseConv2D(3, s if i == 0 else 1, padding='same', use_bias=False)(y)
        y = layers.ReLU()(layers.BatchNormalization()(y))
        y = conv_block(y, f, 1, act=False)
        x = layers.Add()([inp, y]) if (i > 0 or (s == 1 and inp.shape[-1] == f)) else y
    return x


def fast_scnn(num_classes):
    inp = keras.Input((None, None, 3))
    lds = conv_block(inp, 32, s=2)
    lds = conv_block(lds, 48, s=2, dw=True)
    lds = conv_block(lds, 64, s=2, dw=True)                  # 1/8
    g = bottleneck(lds, 64, 6, 2, 2)
    g = bottleneck(g, 96, 6, 2, 2)
    g = bottleneck(g, 128, 6, 1, 2)                         # 1/32
    g = layers.UpSampling2D(4, interpolation='bilinear')(conv_block(g, 128, 1))
    x = layers.ReLU()(layers.Add()([conv_block(lds, 128, 1, act=False), conv_block(g, 128, dw=True, act=False)]))
    x = conv_block(x, 128, dw=True)
    x = layers.Conv2D(num_classes, 1)(x)
    return keras.Model(inp, layers.UpSampling2D(8, interpolation='bilinear')(x), name='fast_scnn')


model = fast_scnn(args.num_classes)
lr_peak = args.base_lr * hvd.size()   # linear scaling: global batch = batch_size * size


def lr_at(it):
    if it < args.warmup_iters:
        return lr_peak * (it + 1) / args.warmup_iters
    return lr_peak * (1 - (it - args.warmup_iters) / (args.iters - args.warmup_iters)) ** 0.9


opt = keras.optimizers.SGD(learning_rate=lr_peak, momentum=0.9)
opt.build(model.trainable_variables)
hvd.broadcast_variables(model.variables, root_rank=0)
hvd.broadcast_variables(opt.variables, root_rank=0)


def seg_loss(lbl, logits):
    lbl = tf.squeeze(lbl, -1)
    valid = (lbl >= 0) & (lbl < args.num_classes)
    ce = tf.nn.sparse_softmax_cross_entropy_with_logits(tf.where(valid, lbl, 0), logits)
    return tf.reduce_sum(tf.where(valid, ce, 0.)) / tf.maximum(tf.reduce_sum(tf.cast(valid, tf.float32)), 1.)


@tf.function
def train_step(img, lbl):
    with tf.GradientTape() as tape:
        loss = seg_loss(lbl, model(img, training=True))
    grads = tape.gradient(loss, model.trainable_variables)
    grads = [hvd.allreduce(g, op=hvd.Average, name='g%d' % i) for i, g in enumerate(grads)]
    opt.apply_gradients(zip(grads, model.trainable_variables))
    return loss


def sliding_eval():
    """whole val set, full resolution, overlapping windows (rank 0 only, not sharded)"""
    conf = np.zeros((args.num_classes, args.num_classes), np.int64)
    wh, ww = args.window
    for img, lbl in val_ds.batch(1):
        H, W = img.shape[1], img.shape[2]
        logits = np.zeros((H, W, args.num_classes), np.float32)
        cnt = np.zeros((H, W, 1), np.float32)
        for y in sorted(set(list(range(0, H - wh, wh * 2 // 3)) + [H - wh])):
            for x in sorted(set(list(range(0, W - ww, ww * 2 // 3)) + [W - ww])):
                logits[y:y + wh, x:x + ww] += model(img[:, y:y + wh, x:x + ww], training=False)[0].numpy()
                cnt[y:y + wh, x:x + ww] += 1
        pred = np.argmax(logits / cnt, -1).ravel()
        gt = lbl.numpy().ravel()
        k = (gt >= 0) & (gt < args.num_classes)
        conf += np.bincount(args.num_classes * gt[k] + pred[k], minlength=args.num_classes ** 2).reshape(
            args.num_classes, args.num_classes)
    iou = np.diag(conf) / np.maximum(conf.sum(0) + conf.sum(1) - np.diag(conf), 1)
    return iou.mean()


best = 0.
t0 = time.time()
for it, (img, lbl) in enumerate(train_ds.take(args.iters)):
    opt.learning_rate.assign(lr_at(it))
    loss = train_step(img, lbl)
    if hvd.rank() == 0 and it % 50 == 0:
        print('[%6d/%d] loss %.4f lr %.5f %.2fs/it' % (it, args.iters, loss, lr_at(it), (time.time() - t0) / (it + 1)))
    if (it + 1) % args.eval_interval == 0 and hvd.rank() == 0:
        miou = sliding_eval()
        print('iter %d  mIoU %.4f  (best %.4f)' % (it + 1, miou, best))
        os.makedirs(args.model_dir, exist_ok=True)
        model.save_weights(os.path.join(args.model_dir, 'last.weights.h5'))
        if miou > best:
            best = miou
            model.save_weights(os.path.join(args.model_dir, 'best.weights.h5'))
