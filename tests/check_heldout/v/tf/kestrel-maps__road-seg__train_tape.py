"""Road-surface segmentation on aerial tiles, custom training loop (horovod.tensorflow).

Tiles are stored as TFRecords (PNG tile + PNG mask).  Launch with
    horovodrun -np 4 python train_tape.py --tiles /scratch/kestrel/tiles-2024
"""
import argparse
import os
import time

import horovod.tensorflow as hvd
import keras
import tensorflow as tf

TILE = 128


def parse_args():
    p = argparse.ArgumentParser()
    p.add_argument("--tiles", default="/scratch/kestrel/tiles-2024")
    p.add_argument("--workdir", default="runs/roadseg")
    p.add_argument("--batch", type=int, default=16)
    p.add_argument("--epochs", type=int, default=40)
    p.add_argument("--base-lr", type=float, default=1e-3)
    p.add_argument("--ckpt-every", type=int, default=5)
    return p.parse_args()


def decode(record):
    f = tf.io.parse_single_example(record, {"tile": tf.io.FixedLenFeature([], tf.string),
                                            "mask": tf.io.FixedLenFeature([], tf.string)})
    img = tf.image.convert_image_dtype(tf.io.decode_png(f["tile"], channels=3), tf.float32)
    mask = tf.cast(tf.io.decode_png(f["mask"], channels=1) > 0, tf.int32)
    return tf.image.resize(img, [TILE, TILE]), tf.image.resize(mask, [TILE, TILE], "nearest")[..., 0]


def tile_dataset(split, batch, training):
    files = sorted(tf.io.gfile.glob(os.path.join(ARGS.tiles, split, "*.tfrec")))
    ds = tf.data.TFRecordDataset(files).shard(hvd.size(), hvd.rank()).map(decode, tf.data.AUTOTUNE)
    if training:
        ds = ds.shuffle(2048, reshuffle_each_iteration=True)
    return ds.batch(batch, drop_remainder=training).prefetch(tf.data.AUTOTUNE)


def unet_small(num_classes=2):
    inp = keras.Input((TILE, TILE, 3))
    c1 = keras.layers.Conv2D(16, 3, padding="same", activation="relu")(inp)
    p1 = keras.layers.MaxPooling2D()(c1)
    c2 = keras.layers.Conv2D(32, 3, padding="same", activation="relu")(p1)
    u1 = keras.layers.UpSampling2D()(c2)
    m = keras.layers.Concatenate()([u1, c1])
    out = keras.layers.Conv2D(num_classes, 1)(keras.layers.Conv2D(16, 3, padding="same", activation="relu")(m))
    return keras.Model(inp, out)


def make_steps(model, opt, loss_fn):
    @tf.function
    def train_step(x, y, first_batch):
        with tf.GradientTape() as tape:
            loss = loss_fn(y, model(x, training=True))
        tape = hvd.DistributedGradientTape(tape)
        grads = tape.gradient(loss, model.trainable_variables)
        opt.apply_gradients(zip(grads, model.trainable_variables))
        if first_batch:
            hvd.broadcast_variables(model.variables, root_rank=0)
            hvd.broadcast_variables(opt.variables, root_rank=0)
        return loss

    @tf.function
    def eval_step(x, y):
        pred = tf.argmax(model(x, training=False), axis=-1, output_type=tf.int32)
        inter = tf.reduce_sum(tf.cast((pred == 1) & (y == 1), tf.float32))
        union = tf.reduce_sum(tf.cast((pred == 1) | (y == 1), tf.float32))
        return inter, union

    return train_step, eval_step


ARGS = parse_args()


def main():
    hvd.init()
    gpus = tf.config.experimental.list_physical_devices("GPU")
    for g in gpus:
        tf.config.experimental.set_memory_growth(g, True)
    if gpus:
        tf.config.experimental.set_visible_devices(gpus[hvd.local_rank()], "GPU")

    train_ds = tile_dataset("train", ARGS.batch, training=True)
    val_ds = tile_dataset("val", ARGS.batch, training=False)
    n_train = sum(1 for _ in train_ds)
    steps_per_epoch = int(hvd.allreduce(tf.constant(n_train), op=hvd.Min))

    model = unet_small()
    schedule = keras.optimizers.schedules.PolynomialDecay(
        ARGS.base_lr * hvd.size(), decay_steps=ARGS.epochs * steps_per_epoch, end_learning_rate=1e-5)
    opt = keras.optimizers.Adam(schedule)
    loss_fn = keras.losses.SparseCategoricalCrossentropy(from_logits=True)
    train_step, eval_step = make_steps(model, opt, loss_fn)

    ckpt = tf.train.Checkpoint(model=model, optimizer=opt)
    manager = tf.train.CheckpointManager(ckpt, os.path.join(ARGS.workdir, "ckpt"), max_to_keep=2)

    for epoch in range(ARGS.epochs):
        t0 = time.time()
        for step, (x, y) in enumerate(train_ds.take(steps_per_epoch)):
            loss = train_step(x, y, epoch == 0 and step == 0)

        inter = union = 0.0
        for x, y in val_ds:
            i, u = eval_step(x, y)
            inter, union = inter + i, union + u
        inter = hvd.allreduce(tf.constant(inter), op=hvd.Sum, name="iou_inter")
        union = hvd.allreduce(tf.constant(union), op=hvd.Sum, name="iou_union")
        iou = float(inter / tf.maximum(union, 1.0))

        if hvd.rank() == 0:
            print(f"epoch {epoch:3d}  loss {float(loss):.4f}  val road IoU {iou:.4f}  {time.time() - t0:.0f}s")
            if (epoch + 1) % ARGS.ckpt_every == 0:
                manager.save(checkpoint_number=epoch + 1)

    if hvd.rank() == 0:
        model.save(os.path.join(ARGS.workdir, "roadseg.keras"))


if __name__ == "__main__":
    main()
