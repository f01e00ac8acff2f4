#!/usr/bin/env python3
"""Two-phase transfer learning (MobileNetV2 on a folder of images).

phase 1: train the new head with the backbone frozen
phase 2: unfreeze the top of the backbone and fine-tune with a small LR
"""
import argparse
import logging
import os

import tensorflow as tf
import horovod.tensorflow.keras as hvd

logger = logging.getLogger(__name__)


def parse_args():
    p = argparse.ArgumentParser(description="MobileNetV2 transfer learning")
    p.add_argument("--data-dir", required=True)
    p.add_argument("--img-size", type=int, default=224)
    p.add_argument("--batch-size", type=int, default=32)
    p.add_argument("--head-epochs", type=int, default=5)
    p.add_argument("--ft-epochs", type=int, default=15)
    p.add_argument("--head-lr", type=float, default=1e-3)
    p.add_argument("--ft-lr", type=float, default=1e-5)
    p.add_argument("--unfreeze-from", type=int, default=100)
    p.add_argument("--output", default="tl_output")
    return p.parse_args()


def setup_horovod():
    hvd.init()
    gpus = tf.config.experimental.list_physical_devices("GPU")
    for gpu in gpus:
        tf.config.experimental.set_memory_growth(gpu, True)
    if gpus:
        tf.config.experimental.set_visible_devices(gpus[hvd.local_rank()], "GPU")
    level = logging.INFO if hvd.rank() == 0 else logging.WARNING
    logging.basicConfig(level=level, format=f"[rank {hvd.rank()}] %(message)s")


def get_datasets(args):
    common = dict(validation_split=0.2, seed=1337,
                  image_size=(args.img_size, args.img_size), batch_size=args.batch_size)
    train = tf.keras.utils.image_dataset_from_directory(args.data_dir, subset="training", **common)
    val = tf.keras.utils.image_dataset_from_directory(args.data_dir, subset="validation", **common)
    n_cls = len(train.class_names)
    # shard whole batches: the file order is the same on every worker (fixed seed)
    train = train.shard(hvd.size(), hvd.rank()).prefetch(tf.data.AUTOTUNE)
    val = val.shard(hvd.size(), hvd.rank()).prefetch(tf.data.AUTOTUNE)
    return train, val, n_cls


def build_model(args, n_cls):
    base = tf.keras.applications.MobileNetV2(input_shape=(args.img_size, args.img_size, 3),
                                             include_top=False, weights="imagenet")
    base.trainable = False
    aug = tf.keras.Sequential([tf.keras.layers.RandomFlip("horizontal"),
                               tf.keras.layers.RandomRotation(0.1)])
    inp = tf.keras.Input((args.img_size, args.img_size, 3))
    x = aug(inp)
    x = tf.keras.applications.mobilenet_v2.preprocess_input(x)
    x = base(x, training=False)
    x = tf.keras.layers.GlobalAveragePooling2D()(x)
    x = tf.keras.layers.Dropout(0.2)(x)
    out = tf.keras.layers.Dense(n_cls)(x)
    return tf.keras.Model(inp, out), base


def make_callbacks(args, tag):
    cbs = [
        hvd.callbacks.BroadcastGlobalVariablesCallback(0),
        hvd.callbacks.MetricAverageCallback(),
    ]
    if hvd.rank() == 0:
        cbs.append(tf.keras.callbacks.ModelCheckpoint(
            os.path.join(args.output, tag + "-{epoch:02d}-{val_accuracy:.3f}.h5"),
            save_weights_only=True))
        cbs.append(tf.keras.callbacks.TensorBoard(os.path.join(args.output, "tb", tag)))
    return cbs


def main():
    args = parse_args()
    setup_horovod()
    os.makedirs(args.output, exist_ok=True)
    train, val, n_cls = get_datasets(args)
    model, base = build_model(args, n_cls)
    loss = tf.keras.losses.SparseCategoricalCrossentropy(from_logits=True)
    verbose = 2 if hvd.rank() == 0 else 0

    # ---- phase 1: head only
    head_opt = tf.keras.optimizers.Adam(learning_rate=args.head_lr * hvd.size())
    model.compile(optimizer=hvd.DistributedOptimizer(head_opt), loss=loss, metrics=["accuracy"])
    logger.info("phase 1: %d trainable weights", len(model.trainable_weights))
    model.fit(train, validation_data=val, epochs=args.head_epochs,
              callbacks=make_callbacks(args, "head"), verbose=verbose)

    # ---- phase 2: fine-tune the top of the backbone
    base.trainable = True
    for layer in base.layers[:args.unfreeze_from]:
        layer.trainable = False
    ft_opt = tf.keras.optimizers.RMSprop(learning_rate=args.ft_lr * hvd.size())
    dist_ft_opt = hvd.DistributedOptimizer(ft_opt, backward_passes_per_step=1)
    model.compile(optimizer=ft_opt, loss=loss, metrics=["accuracy"])
    logger.info("phase 2: %d trainable weights", len(model.trainable_weights))
    hist = model.fit(train, validation_data=val,
                     epochs=args.head_epochs + args.ft_epochs,
                     initial_epoch=args.head_epochs,
                     callbacks=make_callbacks(args, "ft"), verbose=verbose)

    if hvd.rank() == 0:
        model.save(os.path.join(args.output, "final_model"))
        logger.info("best val acc %.4f", max(hist.history["val_accuracy"]))


if __name__ == "__main__":
    main()
