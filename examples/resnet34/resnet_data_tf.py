"""The ResNet34 scripts' data for TensorFlow: an unbatched tf.data.Dataset, and its batches made model-ready.

Nothing here is about Horovod: the converted script shards what load() returns.
"""
import tensorflow as tf

import resnet_data


def load(args, samples):
    """(unbatched tf.data.Dataset, its length, number of classes); `samples` synthetic images if asked for."""
    if args.data == "synthetic":
        pool, labels = resnet_data.synthetic(samples, args.image_size, args.num_classes, args.seed)
        images = tf.data.Dataset.from_tensor_slices(pool).repeat(-(-samples // len(pool))).take(samples)
        return tf.data.Dataset.zip((images, tf.data.Dataset.from_tensor_slices(labels))), samples, args.num_classes
    if args.data == "fashion-mnist":
        x, y = resnet_data.fashion_mnist(args.data_dir)
        return tf.data.Dataset.from_tensor_slices((x[..., None], y)), len(y), 10
    # File names, not decoded images, are sharded and shuffled: every rank reads only its own files.
    paths, labels, classes = resnet_data.image_folder(args.data_dir)
    return tf.data.Dataset.from_tensor_slices((paths, labels)), len(paths), len(classes)


def ready(batches, args, batch_size):
    """Batches as the model takes them: float images, image_size square, ImageNet-normalized."""
    if args.data == "synthetic":
        return batches.prefetch(tf.data.AUTOTUNE)
    if args.data == "folder":
        batches = batches.unbatch().map(_load_image(args.image_size), num_parallel_calls=tf.data.AUTOTUNE) \
            .batch(batch_size)
    return batches.map(lambda x, y: (_normalize(x, args.image_size), y), num_parallel_calls=tf.data.AUTOTUNE) \
        .prefetch(tf.data.AUTOTUNE)


def _normalize(x, size):
    """uint8 N x H x W x C (C = 1 or 3) -> float N x size x size x 3, ImageNet-normalized."""
    x = tf.cast(x, tf.float32) / 255.0
    if x.shape[-1] == 1:
        x = tf.repeat(x, 3, axis=-1)
    if x.shape[1] != size or x.shape[2] != size:
        x = tf.image.resize(x, (size, size), method="bilinear")
    return (x - resnet_data.MEAN) / resnet_data.STD


def _load_image(size):
    def load(path, label):
        image = tf.io.decode_image(tf.io.read_file(path), channels=3, expand_animations=False)
        return tf.cast(tf.image.resize(image, (size, size), method="bilinear"), tf.uint8), label
    return load
