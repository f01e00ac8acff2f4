#!/usr/bin/env python
# ImageNet-subset ResNet50 training from TFRecord shards, Horovod + GradientTape.
# Written for the cluster (SLURM + horovodrun), one GPU per process.
import argparse
import glob
import json
import os

import tensorflow as tf
import horovod.tensorflow as hvd

IMG_SIZE = 224


def get_config():
    parser = argparse.ArgumentParser()
    parser.add_argument("--data", default="/scratch/data/imagenet100/tfrecords")
    parser.add_argument("--out", default="/scratch/runs/resnet50")
    parser.add_argument("--epochs", type=int, default=30)
    parser.add_argument("--bs", type=int, default=64, help="per-GPU batch size")
    parser.add_argument("--base-lr", type=float, default=0.1)
    parser.add_argument("--wd", type=float, default=1e-4)
    parser.add_argument("--num-classes", type=int, default=100)
    cfg = parser.parse_args()
    cfg.world = hvd.size()
    cfg.rank = hvd.rank()
    cfg.is_chief = cfg.rank == 0
    cfg.lr = cfg.base_lr * cfg.world * cfg.bs / 256.0
    return cfg


def parse_example(serialized):
    feats = {
        "image/encoded": tf.io.FixedLenFeature([], tf.string),
        "image/class/label": tf.io.FixedLenFeature([], tf.int64),
    }
    ex = tf.io.parse_single_example(serialized, feats)
    img = tf.io.decode_jpeg(ex["image/encoded"], channels=3)
    img = tf.image.resize(img, [IMG_SIZE, IMG_SIZE])
    img = tf.image.random_flip_left_right(img)
    img = tf.keras.applications.resnet50.preprocess_input(img)
    return img, ex["image/class/label"] - 1


def input_fn(cfg, split):
    files = sorted(glob.glob(os.path.join(cfg.data, "%s-*" % split)))
    if split == "train":
        files = files[cfg.rank::cfg.world]
    ds = tf.data.Dataset.from_tensor_slices(files)
    ds = ds.interleave(tf.data.TFRecordDataset, cycle_length=4,
                       num_parallel_calls=tf.data.AUTOTUNE)
    if split == "train":
        ds = ds.shuffle(2048)
    ds = ds.map(parse_example, num_parallel_calls=tf.data.AUTOTUNE)
    ds = ds.batch(cfg.bs, drop_remainder=(split == "train"))
    return ds.prefetch(tf.data.AUTOTUNE)


def sync_initial_state(model, optimizer):
    hvd.broadcast_variables(model.variables, root_rank=0)
    hvd.broadcast_variables(optimizer.variables(), root_rank=0)


def main():
    hvd.init()
    gpus = tf.config.list_physical_devices("GPU")
    for g in gpus:
        tf.config.experimental.set_memory_growth(g, True)
    if gpus:
        tf.config.set_visible_devices(gpus[hvd.local_rank()], "GPU")

    cfg = get_config()
    train_ds = input_fn(cfg, "train")
    val_ds = input_fn(cfg, "validation")

    model = tf.keras.applications.ResNet50(weights=None, classes=cfg.num_classes)
    opt = tf.keras.optimizers.SGD(learning_rate=cfg.lr, momentum=0.9)
    ce = tf.keras.losses.SparseCategoricalCrossentropy(from_logits=False)

    ckpt = tf.train.Checkpoint(step=tf.Variable(0), model=model, opt=opt)
    if cfg.is_chief:
        os.makedirs(cfg.out, exist_ok=True)
        with open(os.path.join(cfg.out, "config.json"), "w") as f:
            json.dump(vars(cfg), f, indent=2)

    @tf.function
    def train_step(x, y):
        with tf.GradientTape() as tape:
            probs = model(x, training=True)
            loss = ce(y, probs) + cfg.wd * tf.add_n(
                [tf.nn.l2_loss(v) for v in model.trainable_variables if "kernel" in v.name])
        tape = hvd.DistributedGradientTape(tape, compression=hvd.Compression.fp16)
        grads = tape.gradient(loss, model.trainable_variables)
        opt.apply_gradients(zip(grads, model.trainable_variables))
        return loss

    @tf.function
    def eval_step(x, y):
        probs = model(x, training=False)
        correct = tf.reduce_sum(tf.cast(tf.equal(tf.argmax(probs, -1), y), tf.float32))
        return correct, tf.cast(tf.shape(y)[0], tf.float32)

    global_step = 0
    for epoch in range(cfg.epochs):
        running, nb = 0.0, 0
        for x, y in train_ds:
            loss = train_step(x, y)
            if global_step == 0:
                sync_initial_state(model, opt)
            global_step += 1
            running += float(loss)
            nb += 1
            if global_step % 100 == 0 and cfg.is_chief:
                print(f"[{epoch}] step {global_step} loss(rank0) {float(loss):.4f}", flush=True)

        # every rank evaluates the full validation set
        correct, total = 0.0, 0.0
        for x, y in val_ds:
            c, n = eval_step(x, y)
            correct += float(c)
            total += float(n)
        epoch_loss = hvd.allreduce(tf.constant(running / max(nb, 1)), name="epoch_loss")
        if cfg.is_chief:
            print(f"epoch {epoch}: train loss {float(epoch_loss):.4f} val top1 {correct / total:.4f}")
            ckpt.step.assign(global_step)
            ckpt.save(os.path.join(cfg.out, "ckpt"))


if __name__ == "__main__":
    main()
