"""ResNet34 training throughput with TensorFlow 2 / Keras 3 in one process: the course's starting point.

    python examples/resnet34/train_resnet34.py --image-size 64 --num-steps 5

Needs TensorFlow and hvdkit's framework-free part (its model and progress meter), not Horovod.
train_hvd.py is this file converted to Horovod: `diff train_resnet34.py train_hvd.py` is the conversion.
Prints every step's time, images/s, loss and the time left, then the images/s of the timed steps; with
$HVDKIT_RECORD set, writes them as a run record (docs/scale.md).
"""
import argparse
import os
import sys

import numpy as np

from hvdkit.common import errors
from hvdkit.data import datasets
from hvdkit.scale.meter import Meter
from hvdkit.models.cost import time_note
from hvdkit.models.resnet_tf import resnet34  # first: it imports TensorFlow without its C++ start-up notices
import keras
import tensorflow as tf

SOURCES = ("synthetic", "fashion-mnist", "folder")
MEAN = np.array([0.485, 0.456, 0.406], np.float32)  # ImageNet's per-channel statistics
STD = np.array([0.229, 0.224, 0.225], np.float32)
POOL = 32  # distinct synthetic images kept in memory: sample i is image i % POOL
IMAGE_EXTENSIONS = (".jpg", ".jpeg", ".png", ".bmp", ".gif")


class Parser(argparse.ArgumentParser):
    def error(self, message):  # one line, no usage block
        self.exit(2, f"{self.prog}: error: {message}\n")


def whole(minimum):
    def parse(text):
        if not text.isdigit() or int(text) < minimum:
            raise argparse.ArgumentTypeError(f"must be a whole number >= {minimum}, got {text!r}")
        return int(text)
    return parse


def parse_args():
    p = Parser(description="ResNet34 training throughput, with live progress.",
               formatter_class=argparse.ArgumentDefaultsHelpFormatter)
    p.add_argument("--data", choices=SOURCES, default="synthetic")
    p.add_argument("--data-dir", help="Fashion-MNIST's directory (default: searched), or the image folder")
    p.add_argument("--image-size", type=whole(1), default=224, help="images are SIZE x SIZE x 3 (32-64 for a CPU)")
    p.add_argument("--batch-size", type=whole(1), default=16, help="images per step (per rank, with Horovod)")
    p.add_argument("--num-steps", "--num_steps", type=whole(1), default=10, help="timed steps")
    p.add_argument("--warmup-steps", type=whole(0), default=2, help="untimed steps before the timed ones")
    p.add_argument("--num-classes", type=whole(1), default=1000, help="classes of the synthetic data")
    p.add_argument("--lr", type=float, default=0.0125, help="SGD learning rate for one worker")
    p.add_argument("--print-every", type=whole(1), default=1, help="a progress line every N steps")
    p.add_argument("--seed", type=int, default=0)
    args = p.parse_args()
    if args.lr <= 0:
        p.error(f"--lr must be > 0, got {args.lr}")
    if args.data == "folder" and not (args.data_dir and os.path.isdir(args.data_dir)):
        p.error("--data folder needs --data-dir DIR (one subdirectory of images per class)")
    args.total_steps = args.warmup_steps + args.num_steps
    return args


def load(args, samples):
    """(unbatched tf.data.Dataset, its length, number of classes); `samples` synthetic images if asked for."""
    if args.data == "synthetic":  # ImageNet-shaped random images, already "normalized"
        pool = np.random.default_rng(args.seed).standard_normal(
            (min(POOL, samples), args.image_size, args.image_size, 3), dtype=np.float32)
        images = tf.data.Dataset.from_tensor_slices(pool).repeat(-(-samples // len(pool))).take(samples)
        labels = tf.data.Dataset.from_tensor_slices(np.arange(samples) % args.num_classes)
        return tf.data.Dataset.zip((images, labels)), samples, args.num_classes
    if args.data == "fashion-mnist":
        x, y, _, _ = datasets.load("fashion-mnist", args.data_dir)
        return tf.data.Dataset.from_tensor_slices((x[..., None], y)), len(y), 10
    # ROOT/<class>/<image>, ImageNet's train/ layout. File names, not decoded images, are shuffled (and sharded).
    root = args.data_dir
    classes = sorted(d for d in os.listdir(root) if os.path.isdir(os.path.join(root, d)))
    items = [(os.path.join(path, f), label) for label, name in enumerate(classes)
             for path, _, files in sorted(os.walk(os.path.join(root, name)))
             for f in sorted(files) if f.lower().endswith(IMAGE_EXTENSIONS)]
    if not items:
        raise datasets.DataError(f"no images ({', '.join(IMAGE_EXTENSIONS)}) in class subdirectories of {root}")
    paths, labels = zip(*items)
    return tf.data.Dataset.from_tensor_slices((list(paths), list(labels))), len(items), len(classes)


def ready(batches, args, batch_size):
    """Batches as the model takes them: float images, image_size square, ImageNet-normalized."""
    size = (args.image_size, args.image_size)

    def decode(path, label):
        image = tf.io.decode_image(tf.io.read_file(path), channels=3, expand_animations=False)
        return tf.cast(tf.image.resize(image, size, method="bilinear"), tf.uint8), label

    def normalize(x, y):  # uint8 N x H x W x C (C = 1 or 3)
        x = tf.cast(x, tf.float32) / 255.0
        x = tf.image.resize(tf.repeat(x, 3, axis=-1) if x.shape[-1] == 1 else x, size, method="bilinear")
        return (x - MEAN) / STD, y

    if args.data == "folder":
        batches = batches.unbatch().map(decode, num_parallel_calls=tf.data.AUTOTUNE).batch(batch_size)
    if args.data != "synthetic":
        batches = batches.map(normalize, num_parallel_calls=tf.data.AUTOTUNE)
    return batches.prefetch(tf.data.AUTOTUNE)


def main():
    args = parse_args()
    keras.utils.set_random_seed(args.seed)
    batch = args.batch_size
    samples = batch * args.total_steps
    data, n, classes = load(args, samples)
    train = (data if args.data == "synthetic" else data.shuffle(n, seed=args.seed)).batch(batch, drop_remainder=True)
    if n // batch == 0:
        raise datasets.DataError(f"{n} samples give no full batch of {batch}: use a smaller --batch-size")
    model = resnet34(classes, input_shape=(args.image_size, args.image_size, 3))
    opt = keras.optimizers.SGD(args.lr, momentum=0.9)
    loss_fn = keras.losses.SparseCategoricalCrossentropy(from_logits=True)

    @tf.function
    def train_step(x, y):
        with tf.GradientTape() as tape:
            loss = loss_fn(y, model(x, training=True))
        grads = tape.gradient(loss, model.trainable_variables)
        opt.apply_gradients(zip(grads, model.trainable_variables))
        return loss

    meter = Meter(args.total_steps, args.warmup_steps, batch, every=args.print_every)
    meter.say(f"ResNet34 (tensorflow), {args.data} data {args.image_size}x{args.image_size}, batch {batch}, "
              f"{args.warmup_steps} warmup + {args.num_steps} timed steps",
              time_note(args.image_size, batch, args.total_steps,
                        cpu=not tf.config.list_physical_devices("GPU")))
    batches = ready(train.repeat(), args, batch)
    for x, y in batches.take(args.total_steps):
        meter.step(float(train_step(x, y)))  # float() waits for the step: the clock stops when it is done
    loss_sum, count = meter.loss_pair()
    loss = loss_sum / count
    meter.finish(loss, framework="tensorflow", model="resnet34", data=args.data, image_size=args.image_size,
                 num_classes=classes, config=vars(args))
    return 0


if __name__ == "__main__":
    try:
        sys.exit(main())
    except datasets.DataError as exc:  # a missing or unusable data set: one line (exit 2), not a traceback
        errors.fail(exc)
