"""Fine-tune an ImageNet MobileNetV2 on a folder-per-class image dataset with Horovod.

Phase 1 trains only the new classification head, phase 2 unfreezes the top of the
backbone with a smaller learning rate.

data_dir/
    train/<class>/*.jpg
    val/<class>/*.jpg
"""
import argparse
import math
import os

import tensorflow as tf
from tensorflow.keras.applications import MobileNetV2
from tensorflow.keras.applications.mobilenet_v2 import preprocess_input
from tensorflow.keras.callbacks import ModelCheckpoint, CSVLogger
from tensorflow.keras.layers import Dense, Dropout, GlobalAveragePooling2D
from tensorflow.keras.preprocessing.image import ImageDataGenerator
import horovod.tensorflow.keras as hvd

IMG_SIZE = (224, 224)


def parse_args():
    p = argparse.ArgumentParser()
    p.add_argument("--data-dir", required=True)
    p.add_argument("--out-dir", default="runs/mobilenet_ft")
    p.add_argument("--batch-size", type=int, default=32)
    p.add_argument("--head-epochs", type=int, default=5)
    p.add_argument("--ft-epochs", type=int, default=10)
    p.add_argument("--lr", type=float, default=1e-3)
    p.add_argument("--ft-lr", type=float, default=1e-5)
    p.add_argument("--fine-tune-at", type=int, default=100,
                   help="freeze backbone layers below this index in phase 2")
    return p.parse_args()


def make_iterators(args):
    train_gen = ImageDataGenerator(preprocessing_function=preprocess_input,
                                   rotation_range=20, zoom_range=0.15,
                                   width_shift_range=0.1, height_shift_range=0.1,
                                   horizontal_flip=True)
    val_gen = ImageDataGenerator(preprocessing_function=preprocess_input)
    train_it = train_gen.flow_from_directory(os.path.join(args.data_dir, "train"),
                                             target_size=IMG_SIZE, batch_size=args.batch_size,
                                             class_mode="categorical", shuffle=True)
    val_it = val_gen.flow_from_directory(os.path.join(args.data_dir, "val"),
                                         target_size=IMG_SIZE, batch_size=args.batch_size,
                                         class_mode="categorical", shuffle=False)
    return train_it, val_it


def build_model(num_classes):
    base = MobileNetV2(input_shape=IMG_SIZE + (3,), include_top=False, weights="imagenet")
    base.trainable = False
    inputs = tf.keras.Input(shape=IMG_SIZE + (3,))
    x = base(inputs, training=False)
    x = GlobalAveragePooling2D()(x)
    x = Dropout(0.2)(x)
    outputs = Dense(num_classes, activation="softmax")(x)
    return tf.keras.Model(inputs, outputs), base


def compile_model(model, lr):
    opt = tf.keras.optimizers.Adam(learning_rate=lr)
    opt = hvd.DistributedOptimizer(opt)
    model.compile(optimizer=opt, loss="categorical_crossentropy", metrics=["accuracy"],
                  experimental_run_tf_function=False)


def main():
    args = parse_args()
    hvd.init()

    gpus = tf.config.list_physical_devices("GPU")
    for g in gpus:
        tf.config.experimental.set_memory_growth(g, True)
    if gpus:
        tf.config.set_visible_devices(gpus[hvd.local_rank()], "GPU")

    train_it, val_it = make_iterators(args)
    model, base = build_model(train_it.num_classes)
    compile_model(model, args.lr * hvd.size())

    # each worker draws its own random batches; together they cover one epoch
    steps_per_epoch = train_it.samples // (args.batch_size * hvd.size())
    val_steps = int(math.ceil(val_it.samples / args.batch_size))
    verbose = 1 if hvd.rank() == 0 else 0

    callbacks = [
        hvd.callbacks.BroadcastGlobalVariablesCallback(0),
        hvd.callbacks.MetricAverageCallback(),
    ]
    if hvd.rank() == 0:
        os.makedirs(args.out_dir, exist_ok=True)
        callbacks.append(ModelCheckpoint(os.path.join(args.out_dir, "weights-{epoch:02d}.h5"),
                                         save_weights_only=True))
        callbacks.append(CSVLogger(os.path.join(args.out_dir, "history.csv"), append=True))

    # ---- phase 1: train the head ----
    model.fit(train_it,
              steps_per_epoch=steps_per_epoch,
              epochs=args.head_epochs,
              validation_data=val_it,
              validation_steps=val_steps,
              callbacks=callbacks,
              verbose=verbose)

    # ---- phase 2: unfreeze the top of the backbone ----
    base.trainable = True
    for layer in base.layers[:args.fine_tune_at]:
        layer.trainable = False
    compile_model(model, args.ft_lr * hvd.size())
    if hvd.rank() == 0:
        print("trainable weights after unfreezing:", len(model.trainable_weights))

    history = model.fit(train_it,
                        steps_per_epoch=steps_per_epoch,
                        epochs=args.head_epochs + args.ft_epochs,
                        initial_epoch=args.head_epochs,
                        validation_data=val_it,
                        validation_steps=val_steps,
                        callbacks=callbacks,
                        verbose=verbose)

    if hvd.rank() == 0:
        model.save(os.path.join(args.out_dir, "final_model.h5"))
        print("best val acc: %.4f" % max(history.history["val_accuracy"]))


if __name__ == "__main__":
    main()
