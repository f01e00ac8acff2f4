# DenseDepth-style monocular depth on KITTI, TF2 + horovod
# horovodrun -np 4 python train_depth.py --tfrecords /data/kitti_depth/tfrecords
import os
import glob
import time
import argparse

import numpy as np
import tensorflow as tf
import horovod.tensorflow as hvd

parser = argparse.ArgumentParser()
parser.add_argument('--tfrecords', default='/data/kitti_depth/tfrecords')
parser.add_argument('--epochs', type=int, default=25)
parser.add_argument('--base_lr', type=float, default=1e-4)
parser.add_argument('--height', type=int, default=256)
parser.add_argument('--width', type=int, default=832)
parser.add_argument('--max_depth', type=float, default=80.)
parser.add_argument('--ckpt_dir', default='./checkpoints/densedepth')
parser.add_argument('--synthetic', action='store_true')
args = parser.parse_args()

BATCH_PER_GPU = 8
GLOBAL_BATCH = BATCH_PER_GPU * hvd.size()
LR = args.base_lr * GLOBAL_BATCH / BATCH_PER_GPU


def parse_example(serialized):
    feats = tf.io.parse_single_example(serialized, {
        'image': tf.io.FixedLenFeature([], tf.string),
        'depth': tf.io.FixedLenFeature([], tf.string),
    })
    img = tf.image.convert_image_dtype(tf.io.decode_png(feats['image'], 3), tf.float32)
    depth = tf.cast(tf.io.decode_png(feats['depth'], 1, dtype=tf.uint16), tf.float32) / 256.
    return img, depth


def augment(img, depth):
    both = tf.concat([img, depth], -1)
    both = tf.image.random_crop(both, [args.height, args.width, 4])
    both = tf.image.random_flip_left_right(both)
    img, depth = both[..., :3], both[..., 3:]
    img = tf.image.random_brightness(img, 0.2)
    return img, depth


def make_dataset(split, training):
    if args.synthetic:
        n = 64 if training else 8
        imgs = np.random.rand(n, 375, 1242, 3).astype('float32')
        deps = (np.random.rand(n, 375, 1242, 1) * args.max_depth).astype('float32')
        ds = tf.data.Dataset.from_tensor_slices((imgs, deps))
    else:
        files = sorted(glob.glob(os.path.join(args.tfrecords, split, '*.tfrecord')))
        ds = tf.data.TFRecordDataset(files).map(parse_example, num_parallel_calls=tf.data.AUTOTUNE)
    ds = ds.shard(hvd.size(), hvd.rank())
    if training:
        ds = ds.shuffle(512).map(augment, num_parallel_calls=tf.data.AUTOTUNE)
        ds = ds.batch(BATCH_PER_GPU, drop_remainder=True)
    else:
        ds = ds.batch(1)
    return ds.prefetch(tf.data.AUTOTUNE)


def up_block(x, skip, filters):
    x = tf.keras.layers.UpSampling2D(interpolation='bilinear')(x)
    x = tf.keras.layers.Concatenate()([x, skip])
    x = tf.keras.layers.Conv2D(filters, 3, padding='same', activation='relu')(x)
    return tf.keras.layers.Conv2D(filters, 3, padding='same', activation='relu')(x)


def build_model():
    inp = tf.keras.Input((None, None, 3))
    skips, x = [], inp
    for f in (32, 64, 128, 256):
        x = tf.keras.layers.Conv2D(f, 3, strides=2, padding='same', activation='relu')(x)
        x = tf.keras.layers.BatchNormalization()(x)
        skips.append(x)
    for f, s in zip((128, 64, 32), reversed(skips[:-1])):
        x = up_block(x, s, f)
    x = tf.keras.layers.UpSampling2D(interpolation='bilinear')(x)
    out = tf.keras.layers.Conv2D(1, 3, padding='same', activation='sigmoid')(x)
    return tf.keras.Model(inp, out)


def depth_loss(gt, pred_depth):
    mask = tf.cast(gt > 1e-3, tf.float32)
    l1 = tf.reduce_sum(tf.abs(pred_depth - gt) * mask) / tf.maximum(tf.reduce_sum(mask), 1.)
    dy_p, dx_p = tf.image.image_gradients(pred_depth)
    dy_g, dx_g = tf.image.image_gradients(gt)
    edge = tf.reduce_mean(tf.abs(dy_p - dy_g) + tf.abs(dx_p - dx_g))
    return 0.1 * l1 + edge


def main():
    hvd.init()

    train_ds = make_dataset('train', True)
    val_ds = make_dataset('val', False)
    model = build_model()
    steps_per_epoch = sum(1 for _ in train_ds)
    total_steps = args.epochs * steps_per_epoch
    opt = tf.keras.optimizers.Adam(learning_rate=tf.keras.optimizers.schedules.PolynomialDecay(
        LR, total_steps, end_learning_rate=LR * 0.01, power=0.9))

    ckpt = tf.train.Checkpoint(model=model, optimizer=opt)

    @tf.function
    def train_step(img, depth, first_batch):
        with tf.GradientTape() as tape:
            pred = model(img, training=True) * args.max_depth
            loss = depth_loss(depth, pred)
        tape = hvd.DistributedGradientTape(tape)
        grads = tape.gradient(loss, model.trainable_variables)
        opt.apply_gradients(zip(grads, model.trainable_variables))
        if first_batch:
            hvd.broadcast_variables(model.variables, root_rank=0)
            hvd.broadcast_variables(opt.variables, root_rank=0)
        return loss

    def evaluate():
        # abs_rel / rmse at full KITTI resolution, summed over all workers
        s = np.zeros(3, np.float64)
        for img, depth in val_ds:
            h, w = depth.shape[1], depth.shape[2]
            inp = tf.image.resize(img, [args.height, args.width])
            pred = tf.image.resize(model(inp, training=False) * args.max_depth, [h, w])
            m = (depth > 1e-3) & (depth < args.max_depth)
            g, p = tf.boolean_mask(depth, m), tf.maximum(tf.boolean_mask(pred, m), 1e-3)
            s += [tf.reduce_sum(tf.abs(g - p) / g).numpy(), tf.reduce_sum((g - p) ** 2).numpy(), float(g.shape[0])]
        s = hvd.allreduce(tf.constant(s), op=hvd.Sum).numpy()
        return s[0] / s[2], np.sqrt(s[1] / s[2])

    best = np.inf
    for epoch in range(args.epochs):
        t0 = time.time()
        for step, (img, depth) in enumerate(train_ds):
            loss = train_step(img, depth, epoch == 0 and step == 0)
            if step % 50 == 0 and hvd.rank() == 0:
                print('epoch %d step %d loss %.4f' % (epoch, step, loss.numpy()))
        abs_rel, rmse = evaluate()
        if hvd.rank() == 0:
            print('epoch %d: abs_rel %.4f rmse %.3f (%.0fs)' % (epoch, abs_rel, rmse, time.time() - t0))
            if abs_rel < best:
                best = abs_rel
                ckpt.write(os.path.join(args.ckpt_dir, 'best'))


if __name__ == '__main__':
    main()
