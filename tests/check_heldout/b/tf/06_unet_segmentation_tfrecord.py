"""2D U-Net for cell segmentation. TFRecords of (image, mask) pairs.

Multi-node with Horovod:  srun -n 16 python 06_unet_segmentation_tfrecord.py --train 'data/train-*.tfrec'
"""
import argparse
import os
import datetime

import tensorflow as tf
import horovod.tensorflow as hvd

AUTOTUNE = tf.data.AUTOTUNE


def build_config():
    p = argparse.ArgumentParser()
    p.add_argument("--train", default="data/train-*.tfrec")
    p.add_argument("--val", default="data/val-*.tfrec")
    p.add_argument("--epochs", type=int, default=50)
    p.add_argument("--batch", type=int, default=8)
    p.add_argument("--lr", type=float, default=1e-4)
    p.add_argument("--save-every", type=int, default=5)
    p.add_argument("--outdir", default="runs/unet")
    args = p.parse_args()
    cfg = dict(vars(args))
    cfg["scaled_lr"] = args.lr * hvd.size()
    return cfg


def decode(record):
    f = tf.io.parse_single_example(record, {
        "image": tf.io.FixedLenFeature([], tf.string),
        "mask": tf.io.FixedLenFeature([], tf.string),
    })
    img = tf.image.decode_png(f["image"], channels=1)
    msk = tf.image.decode_png(f["mask"], channels=1)
    img = tf.image.convert_image_dtype(img, tf.float32)
    msk = tf.cast(msk > 0, tf.float32)
    return tf.image.resize(img, (256, 256)), tf.image.resize(msk, (256, 256), method="nearest")


def make_dataset(pattern, batch, rank, world, training=True):
    ds = tf.data.Dataset.list_files(pattern, shuffle=False)
    ds = ds.shard(world, rank)
    ds = ds.interleave(tf.data.TFRecordDataset, num_parallel_calls=AUTOTUNE, deterministic=False)
    ds = ds.map(decode, num_parallel_calls=AUTOTUNE)
    if training:
        ds = ds.shuffle(512)
    return ds.batch(batch, drop_remainder=training).prefetch(AUTOTUNE)


def conv_block(x, filters):
    x = tf.keras.layers.Conv2D(filters, 3, padding="same", activation="relu")(x)
    return tf.keras.layers.Conv2D(filters, 3, padding="same", activation="relu")(x)


def unet(base=32):
    inputs = tf.keras.Input((256, 256, 1))
    skips, x = [], inputs
    for i in range(4):
        x = conv_block(x, base * 2 ** i)
        skips.append(x)
        x = tf.keras.layers.MaxPool2D()(x)
    x = conv_block(x, base * 16)
    for i in reversed(range(4)):
        x = tf.keras.layers.Conv2DTranspose(base * 2 ** i, 2, strides=2, padding="same")(x)
        x = tf.keras.layers.Concatenate()([x, skips[i]])
        x = conv_block(x, base * 2 ** i)
    return tf.keras.Model(inputs, tf.keras.layers.Conv2D(1, 1)(x))


def dice(y_true, logits, eps=1.0):
    p = tf.sigmoid(logits)
    inter = tf.reduce_sum(p * y_true)
    return (2 * inter + eps) / (tf.reduce_sum(p) + tf.reduce_sum(y_true) + eps)


def average(value, name):
    return hvd.allreduce(tf.convert_to_tensor(value, tf.float32), name=name).numpy()


def main():
    hvd.init()
    for gpu in tf.config.list_physical_devices("GPU"):
        tf.config.experimental.set_memory_growth(gpu, True)
    gpus = tf.config.list_physical_devices("GPU")
    if gpus:
        tf.config.set_visible_devices(gpus[hvd.local_rank()], "GPU")

    cfg = build_config()
    train_ds = make_dataset(cfg["train"], cfg["batch"], hvd.rank(), hvd.size())
    val_ds = make_dataset(cfg["val"], cfg["batch"], hvd.rank(), hvd.size(), training=False)

    model = unet()
    opt = tf.keras.optimizers.Adam(cfg["scaled_lr"])
    bce = tf.keras.losses.BinaryCrossentropy(from_logits=True)
    ckpt = tf.train.Checkpoint(model=model, optimizer=opt, epoch=tf.Variable(0))
    manager = tf.train.CheckpointManager(ckpt, cfg["outdir"], max_to_keep=5)
    if manager.latest_checkpoint:
        ckpt.restore(manager.latest_checkpoint)

    writer = None
    if hvd.rank() == 0:
        stamp = datetime.datetime.now().strftime("%Y%m%d-%H%M%S")
        writer = tf.summary.create_file_writer(os.path.join(cfg["outdir"], "tb", stamp))

    @tf.function
    def train_step(x, y, first_batch):
        with tf.GradientTape() as tape:
            logits = model(x, training=True)
            loss = bce(y, logits) + (1.0 - dice(y, logits))
        tape = hvd.DistributedGradientTape(tape)
        grads = tape.gradient(loss, model.trainable_variables)
        opt.apply_gradients(zip(grads, model.trainable_variables))
        if first_batch:
            hvd.broadcast_variables(model.variables, root_rank=0)
            hvd.broadcast_variables(opt.variables(), root_rank=0)
        return loss

    first = True
    for epoch in range(int(ckpt.epoch), cfg["epochs"]):
        tot, n = 0.0, 0
        for x, y in train_ds:
            tot += float(train_step(x, y, first))
            first = False
            n += 1
        vd, vn = 0.0, 0
        for x, y in val_ds:
            vd += float(dice(y, model(x, training=False)))
            vn += 1
        train_loss = average(tot / max(n, 1), "train_loss")
        val_dice = average(vd / max(vn, 1), "val_dice")
        ckpt.epoch.assign(epoch + 1)
        if hvd.rank() == 0:
            print(f"epoch {epoch + 1}/{cfg['epochs']} loss={train_loss:.4f} val_dice={val_dice:.4f}")
            with writer.as_default():
                tf.summary.scalar("train/loss", train_loss, step=epoch)
                tf.summary.scalar("val/dice", val_dice, step=epoch)
            if (epoch + 1) % cfg["save_every"] == 0:
                manager.save()


if __name__ == "__main__":
    main()
