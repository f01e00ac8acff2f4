#!/usr/bin/env python
"""ResNet-20 style CIFAR-10 training with Horovod + tf.keras.

    horovodrun -np 8 -H node01:4,node02:4 python 01_cifar10_resnet_tfdata_resume.py --epochs 90

Restarts from the newest checkpoint in --checkpoint-format if the job was preempted.
"""
import argparse
import os

import tensorflow as tf
import horovod.tensorflow.keras as hvd

parser = argparse.ArgumentParser(description="CIFAR-10 ResNet with Horovod")
parser.add_argument("--batch-size", type=int, default=128, help="per-GPU batch size")
parser.add_argument("--val-batch-size", type=int, default=256)
parser.add_argument("--epochs", type=int, default=90)
parser.add_argument("--base-lr", type=float, default=0.0125, help="learning rate for a single GPU")
parser.add_argument("--momentum", type=float, default=0.9)
parser.add_argument("--wd", type=float, default=5e-5)
parser.add_argument("--warmup-epochs", type=float, default=5)
parser.add_argument("--checkpoint-format", default="./checkpoints/checkpoint-{epoch}.h5")
parser.add_argument("--log-dir", default="./logs")
args = parser.parse_args()

hvd.init()

# one GPU per process
gpus = tf.config.experimental.list_physical_devices("GPU")
for gpu in gpus:
    tf.config.experimental.set_memory_growth(gpu, True)
if gpus:
    tf.config.experimental.set_visible_devices(gpus[hvd.local_rank()], "GPU")

verbose = 1 if hvd.rank() == 0 else 0

# find the latest checkpoint (only rank 0 is guaranteed to see the directory)
resume_from_epoch = 0
for try_epoch in range(args.epochs, 0, -1):
    if os.path.exists(args.checkpoint_format.format(epoch=try_epoch)):
        resume_from_epoch = try_epoch
        break
resume_from_epoch = hvd.broadcast(resume_from_epoch, 0, name="resume_from_epoch")


def load_cifar10():
    (x_train, y_train), (x_test, y_test) = tf.keras.datasets.cifar10.load_data()
    x_train = x_train.astype("float32") / 255.0
    x_test = x_test.astype("float32") / 255.0
    mean = x_train.mean(axis=(0, 1, 2))
    std = x_train.std(axis=(0, 1, 2))
    x_train = (x_train - mean) / std
    x_test = (x_test - mean) / std
    return (x_train, y_train.flatten()), (x_test, y_test.flatten())


def augment(image, label):
    image = tf.image.resize_with_crop_or_pad(image, 36, 36)
    image = tf.image.random_crop(image, [32, 32, 3])
    image = tf.image.random_flip_left_right(image)
    return image, label


def res_block(x, filters, stride=1):
    reg = tf.keras.regularizers.l2(args.wd)
    shortcut = x
    y = tf.keras.layers.Conv2D(filters, 3, strides=stride, padding="same", use_bias=False,
                               kernel_regularizer=reg)(x)
    y = tf.keras.layers.BatchNormalization()(y)
    y = tf.keras.layers.ReLU()(y)
    y = tf.keras.layers.Conv2D(filters, 3, padding="same", use_bias=False, kernel_regularizer=reg)(y)
    y = tf.keras.layers.BatchNormalization()(y)
    if stride != 1 or shortcut.shape[-1] != filters:
        shortcut = tf.keras.layers.Conv2D(filters, 1, strides=stride, use_bias=False,
                                          kernel_regularizer=reg)(shortcut)
        shortcut = tf.keras.layers.BatchNormalization()(shortcut)
    return tf.keras.layers.ReLU()(tf.keras.layers.add([y, shortcut]))


def build_resnet(num_classes=10, n=3):
    inputs = tf.keras.Input(shape=(32, 32, 3))
    x = tf.keras.layers.Conv2D(16, 3, padding="same", use_bias=False)(inputs)
    x = tf.keras.layers.BatchNormalization()(x)
    x = tf.keras.layers.ReLU()(x)
    for stage, filters in enumerate([16, 32, 64]):
        for i in range(n):
            stride = 2 if (stage > 0 and i == 0) else 1
            x = res_block(x, filters, stride)
    x = tf.keras.layers.GlobalAveragePooling2D()(x)
    outputs = tf.keras.layers.Dense(num_classes, activation="softmax")(x)
    return tf.keras.Model(inputs, outputs, name="resnet20")


(x_train, y_train), (x_test, y_test) = load_cifar10()

train_ds = (tf.data.Dataset.from_tensor_slices((x_train, y_train))
            .shard(hvd.size(), hvd.rank())
            .shuffle(10000)
            .map(augment, num_parallel_calls=tf.data.AUTOTUNE)
            .batch(args.batch_size, drop_remainder=True)
            .repeat()
            .prefetch(tf.data.AUTOTUNE))
# every worker validates on the full test set
test_ds = tf.data.Dataset.from_tensor_slices((x_test, y_test)).batch(args.val_batch_size)

steps_per_epoch = len(x_train) // (args.batch_size * hvd.size())
scaled_lr = args.base_lr * hvd.size()

if resume_from_epoch > 0 and hvd.rank() == 0:
    # hvd.load_model wraps the restored optimizer in DistributedOptimizer
    model = hvd.load_model(args.checkpoint_format.format(epoch=resume_from_epoch))
else:
    model = build_resnet()
    opt = tf.keras.optimizers.SGD(learning_rate=scaled_lr, momentum=args.momentum)
    opt = hvd.DistributedOptimizer(opt)
    model.compile(loss="sparse_categorical_crossentropy", optimizer=opt,
                  metrics=["accuracy"], experimental_run_tf_function=False)

callbacks = [
    hvd.callbacks.BroadcastGlobalVariablesCallback(0),
    hvd.callbacks.MetricAverageCallback(),
    hvd.callbacks.LearningRateWarmupCallback(initial_lr=scaled_lr, warmup_epochs=args.warmup_epochs,
                                             verbose=verbose),
    hvd.callbacks.LearningRateScheduleCallback(initial_lr=scaled_lr, start_epoch=args.warmup_epochs,
                                               end_epoch=40, multiplier=1.),
    hvd.callbacks.LearningRateScheduleCallback(initial_lr=scaled_lr, start_epoch=40, end_epoch=70,
                                               multiplier=1e-1),
    hvd.callbacks.LearningRateScheduleCallback(initial_lr=scaled_lr, start_epoch=70, multiplier=1e-2),
]

if hvd.rank() == 0:
    os.makedirs(os.path.dirname(args.checkpoint_format), exist_ok=True)
    callbacks.append(tf.keras.callbacks.ModelCheckpoint(args.checkpoint_format))
    callbacks.append(tf.keras.callbacks.TensorBoard(args.log_dir))

model.fit(train_ds,
          steps_per_epoch=steps_per_epoch,
          epochs=args.epochs,
          initial_epoch=resume_from_epoch,
          validation_data=test_ds,
          callbacks=callbacks,
          verbose=verbose)

score = model.evaluate(test_ds, verbose=verbose)
if hvd.rank() == 0:
    print("Test loss: %.4f  Test accuracy: %.4f" % (score[0], score[1]))
