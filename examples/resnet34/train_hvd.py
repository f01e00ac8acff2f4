"""ResNet34 on Horovod with TensorFlow 2 / Keras 3: train_resnet34.py converted with hvdkit's eight steps.

    mpirun -n 8 python examples/resnet34/train_hvd.py                                    # 224 px: slow on a CPU
    mpirun -n 8 python examples/resnet34/train_hvd.py --image-size 64 --num-steps 5      # a quick run

Every line that differs from train_resnet34.py carries a `# Horovod:` comment naming its step (of the eight
in docs/eight-steps.md); tests/test_resnet.py checks that nothing else changed. Rank 0 prints every step's
time, images/s, loss and the time left, then each rank's images/s and their sum (hvdkit's Meter, which knows
the ranks after hk.init()). Step 5 is hk.train_step: its forward and backward pass runs under XLA if a trial
on six extra untimed steps finds that faster. The tools drive it from outside, as they drive any script that
times its steps with hvdkit's Meter or hk.progress:

    hvdkit scale -n 1,2,4 -- python examples/resnet34/train_hvd.py --image-size 64       # docs/scale.md
    hvdkit timeline capture --steps 9:12 -- mpirun -n 2 python examples/resnet34/train_hvd.py --image-size 64
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
import hvdkit.tensorflow as hk  # Horovod: the eight steps, one call each

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
    p.add_argument("--lr-warmup-steps", type=whole(0), default=5, help="steps from --lr to --lr x ranks")  # Horovod: 4
    p.add_argument("--checkpoint-dir", help="resume from the latest checkpoint here, save one at the end")  # Horovod: 7
    args = p.parse_args()
    if args.lr <= 0:
        p.error(f"--lr must be > 0, got {args.lr}")
    if args.data == "folder" and not (args.data_dir and os.path.isdir(args.data_dir)):
        p.error("--data folder needs --data-dir DIR (one subdirectory of images per class)")
    args.warmup_steps += hk.TrainStep.trial_length()  # Horovod: step 5, hk.train_step's XLA trial runs untimed
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
    ctx = hk.init(seed=args.seed)  # Horovod: steps 1-2, start Horovod, a share of the cores (or a GPU) per rank
    batch = args.batch_size
    samples = batch * ctx.size * args.total_steps  # Horovod: synthetic images for every rank
    data, n, classes = load(args, samples)
    train = hk.shard(data, batch, shuffle=args.data != "synthetic", seed=args.seed, drop_last=True)  # Horovod: step 3
    if train.steps == 0:  # Horovod: step 3, steps per epoch on each rank
        raise datasets.DataError(f"{n} samples give no full batch of {batch}: use a smaller --batch-size")
    model = resnet34(classes, input_shape=(args.image_size, args.image_size, 3))
    opt = keras.optimizers.SGD(hk.scale_lr(args.lr), momentum=0.9)  # Horovod: step 4, LR x ranks
    hk.warmup(opt, steps=args.lr_warmup_steps)  # Horovod: step 4, ramped up from --lr over the first steps
    loss_fn = keras.losses.SparseCategoricalCrossentropy(from_logits=True)

    train_step = hk.train_step(model, loss_fn, opt)  # Horovod: step 5, averaged gradients; XLA if faster here
    hk.broadcast_state(model, opt)  # Horovod: step 6, rank 0's weights and optimizer slots, before step 1
    ckpt = hk.Checkpointer(args.checkpoint_dir) if args.checkpoint_dir else None  # Horovod: step 7, rank 0 writes
    run = ckpt.restore(model=model, optimizer=opt) if ckpt else 0  # Horovod: step 7, every rank resumes alike
    meter = Meter(args.total_steps, args.warmup_steps, batch, every=args.print_every)
    meter.say(f"ResNet34 (tensorflow), {args.data} data {args.image_size}x{args.image_size}, batch {batch}, "
              f"{args.warmup_steps} warmup + {args.num_steps} timed steps",
              time_note(args.image_size, batch, args.total_steps,
                        cpu=not tf.config.list_physical_devices("GPU")))
    batches = ready(train.repeat(), args, batch)
    for x, y in batches.take(args.total_steps):
        meter.step(float(train_step(x, y)))  # float() waits for the step: the clock stops when it is done
    if ckpt:  # Horovod: step 7
        ckpt.save(run, model=model, optimizer=opt)  # Horovod: step 7, only rank 0 writes
    loss = hk.average_metrics({"loss": meter.loss_pair()})["loss"]  # Horovod: step 8, over every rank's steps
    meter.finish(loss, framework="tensorflow", model="resnet34", data=args.data, image_size=args.image_size,
                 num_classes=classes, config=vars(args))
    return 0


if __name__ == "__main__":
    try:
        sys.exit(main())
    except datasets.DataError as exc:  # a missing or unusable data set: one line (exit 2), not a traceback
        errors.fail(exc)
