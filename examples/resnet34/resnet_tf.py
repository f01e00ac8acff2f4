"""The TensorFlow 2 / Keras 3 half of train_hvd.py: data, model and one training step, with hvdkit's steps 3-7."""
import tensorflow as tf
import keras

import hvdkit.tensorflow as hk
from hvdkit.tensorflow.resnet import resnet34

import resnet_data

NAME = "tensorflow"


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
        image = tf.cast(tf.image.resize(image, (size, size), method="bilinear"), tf.uint8)
        return image, label
    return load


def dataset(args, total_samples):
    """(unbatched tf.data.Dataset, its length, number of classes)."""
    if args.data == "synthetic":
        pool, labels = resnet_data.synthetic(total_samples, args.image_size, args.num_classes, args.seed)
        repeats = -(-total_samples // len(pool))
        images = tf.data.Dataset.from_tensor_slices(pool).repeat(repeats).take(total_samples)
        return tf.data.Dataset.zip((images, tf.data.Dataset.from_tensor_slices(labels))), total_samples, args.num_classes
    if args.data == "fashion-mnist":
        x, y = resnet_data.fashion_mnist(args.data_dir)
        return tf.data.Dataset.from_tensor_slices((x[..., None], y)), len(y), 10
    # File names, not decoded images, are sharded and shuffled: every rank reads only its own files.
    paths, labels, classes = resnet_data.image_folder(args.data_dir)
    return tf.data.Dataset.from_tensor_slices((paths, labels)), len(paths), len(classes)


class Trainer:
    def __init__(self, args, ctx, total_samples):
        data, n, self.num_classes = dataset(args, total_samples)
        self.args = args
        shuffle = args.data != "synthetic"
        self.data = hk.shard(data, args.batch_size, shuffle=shuffle, seed=args.seed, drop_last=True,  # Horovod: step 3
                             num_samples=n)
        if self.data.steps == 0:
            raise resnet_data.DataError(f"{n} samples give no full batch of {args.batch_size} on each of "
                                        f"{ctx.size} ranks: use a smaller --batch-size")
        s = args.image_size
        self.model = resnet34(self.num_classes, input_shape=(s, s, 3))
        self.opt = keras.optimizers.SGD(hk.warmup(args.lr, steps=args.lr_warmup_steps),  # Horovod: step 4, LR x ranks, ramped up
                                        momentum=0.9)
        loss_fn = keras.losses.SparseCategoricalCrossentropy(from_logits=True)
        compression = "fp16" if args.fp16_allreduce else "none"
        model, opt = self.model, self.opt

        @tf.function(input_signature=[tf.TensorSpec((args.batch_size, s, s, 3), tf.float32),
                                      tf.TensorSpec((args.batch_size,), tf.int64)])
        def train_step(x, y):
            with tf.GradientTape() as tape:
                loss = loss_fn(y, model(x, training=True))
            tape = hk.DistributedGradientTape(tape, compression=compression)  # Horovod: step 5, averaged gradients
            grads = tape.gradient(loss, model.trainable_variables)
            opt.apply_gradients(zip(grads, model.trainable_variables))
            return loss

        self._step = train_step
        hk.broadcast_state(self.model, self.opt)  # Horovod: step 6, rank 0's weights and optimizer slots, before step 1
        self.ckpt = hk.Checkpointer(args.checkpoint_dir) if args.checkpoint_dir else None  # Horovod: step 7
        self.run_index = self.ckpt.restore(model=self.model, optimizer=self.opt) if self.ckpt else 0  # Horovod: step 7

    def _epoch(self, epoch):
        ds = self.data.for_epoch(epoch)  # Horovod: step 3, shuffled by (seed, epoch), the same on every rank
        b, s = self.args.batch_size, self.args.image_size
        if self.args.data == "folder":
            ds = ds.unbatch().map(_load_image(s), num_parallel_calls=tf.data.AUTOTUNE).batch(b, drop_remainder=True)
        if self.args.data != "synthetic":
            ds = ds.map(lambda x, y: (_normalize(x, s), y), num_parallel_calls=tf.data.AUTOTUNE)
        return ds.prefetch(tf.data.AUTOTUNE)

    def batches(self):
        """Endless (images, labels) batches, epoch after epoch."""
        epoch = 0
        while True:
            yield from self._epoch(epoch)
            epoch += 1

    def step(self, x, y):
        """One optimizer step; returns the batch's mean loss once the step has finished."""
        return float(self._step(x, y))  # float() waits for the step: the clock stops when it is done

    def save(self):
        if self.ckpt:
            self.ckpt.save(self.run_index, model=self.model, optimizer=self.opt)  # Horovod: step 7, only rank 0 writes


def allreduce_sum(values, name):
    return hk.hvd.allreduce(tf.constant(values, tf.float64), op=hk.hvd.Sum, name=name).numpy().tolist()


def allgather(obj, name):
    return hk.hvd.allgather_object(obj, name=name)


def versions():
    return {"tensorflow": tf.__version__, "keras": keras.__version__}
