# SimCLR-style contrastive pretraining on unlabeled image crops (TFRecords).
# Two random augmentations per image, NT-Xent loss, ResNet-ish encoder + projection head.
import glob
import logging
import math
import os

import tensorflow as tf
import horovod.tensorflow as hvd

CONFIG = {
    "records": "/scratch/$USER/crops/train-*.tfrecord",
    "image_size": 96,
    "batch_size": 256,          # per GPU
    "epochs": 100,
    "base_lr": 0.3,             # for a batch of 256
    "warmup_epochs": 5,
    "temperature": 0.2,
    "steps_per_epoch": 500,
    "out_dir": "runs/simclr",
}

logging.basicConfig(level=logging.INFO, format="%(asctime)s %(message)s")
log = logging.getLogger("simclr")


def setup_devices():
    hvd.init()
    gpus = tf.config.list_physical_devices("GPU")
    for gpu in gpus:
        tf.config.experimental.set_memory_growth(gpu, True)
    if gpus:
        tf.config.set_visible_devices(gpus[hvd.local_rank()], "GPU")
    if hvd.rank() != 0:
        log.setLevel(logging.WARNING)


def parse_example(raw):
    feats = tf.io.parse_single_example(raw, {"image": tf.io.FixedLenFeature([], tf.string)})
    img = tf.io.decode_jpeg(feats["image"], channels=3)
    return tf.image.convert_image_dtype(img, tf.float32)


def augment(img, size):
    img = tf.image.random_crop(tf.image.resize(img, (size + 16, size + 16)), (size, size, 3))
    img = tf.image.random_flip_left_right(img)
    img = tf.image.random_brightness(img, 0.4)
    img = tf.image.random_saturation(img, 0.6, 1.4)
    return tf.clip_by_value(img, 0.0, 1.0)


def make_dataset(cfg):
    files = sorted(glob.glob(os.path.expandvars(cfg["records"])))
    my_files = files[hvd.rank()::hvd.size()]
    ds = tf.data.Dataset.from_tensor_slices(my_files).shuffle(len(my_files))
    ds = ds.interleave(tf.data.TFRecordDataset, num_parallel_calls=tf.data.AUTOTUNE)
    ds = ds.map(parse_example, num_parallel_calls=tf.data.AUTOTUNE)
    size = cfg["image_size"]
    ds = ds.map(lambda x: (augment(x, size), augment(x, size)), num_parallel_calls=tf.data.AUTOTUNE)
    return ds.shuffle(4096).repeat().batch(cfg["batch_size"], drop_remainder=True).prefetch(2)


def make_encoder(size):
    base = tf.keras.applications.ResNet50(include_top=False, weights=None,
                                          input_shape=(size, size, 3), pooling="avg")
    proj = tf.keras.Sequential([tf.keras.layers.Dense(512, activation="relu"),
                                tf.keras.layers.Dense(128)])
    inp = tf.keras.Input((size, size, 3))
    return tf.keras.Model(inp, proj(base(inp)))


class WarmupCosine(tf.keras.optimizers.schedules.LearningRateSchedule):
    def __init__(self, peak, warmup_steps, total_steps):
        self.peak, self.warmup_steps, self.total_steps = peak, warmup_steps, total_steps

    def __call__(self, step):
        step = tf.cast(step, tf.float32)
        warm = self.peak * step / self.warmup_steps
        progress = (step - self.warmup_steps) / (self.total_steps - self.warmup_steps)
        cos = 0.5 * self.peak * (1.0 + tf.cos(math.pi * tf.minimum(progress, 1.0)))
        return tf.where(step < self.warmup_steps, warm, cos)


def nt_xent(z1, z2, temperature):
    z1 = tf.math.l2_normalize(z1, axis=1)
    z2 = tf.math.l2_normalize(z2, axis=1)
    z = tf.concat([z1, z2], axis=0)
    n = tf.shape(z1)[0]
    sim = tf.matmul(z, z, transpose_b=True) / temperature
    sim = sim - tf.eye(2 * n) * 1e9
    labels = tf.concat([tf.range(n, 2 * n), tf.range(0, n)], axis=0)
    return tf.reduce_mean(tf.keras.losses.sparse_categorical_crossentropy(labels, sim, from_logits=True))


class ContrastiveTrainer:
    def __init__(self, cfg):
        self.cfg = cfg
        self.model = make_encoder(cfg["image_size"])
        spe = cfg["steps_per_epoch"]
        peak = cfg["base_lr"] * cfg["batch_size"] * hvd.size() / 256
        self.schedule = WarmupCosine(peak, cfg["warmup_epochs"] * spe, cfg["epochs"] * spe)
        self.opt = tf.keras.optimizers.SGD(self.schedule, momentum=0.9)
        self.ckpt = tf.train.Checkpoint(model=self.model, opt=self.opt, epoch=tf.Variable(0))
        self.manager = tf.train.CheckpointManager(self.ckpt, cfg["out_dir"], max_to_keep=2)
        self.writer = tf.summary.create_file_writer(cfg["out_dir"]) if hvd.rank() == 0 else None

    @tf.function
    def step(self, v1, v2):
        with tf.GradientTape() as tape:
            loss = nt_xent(self.model(v1, training=True), self.model(v2, training=True),
                           self.cfg["temperature"])
        tape = hvd.DistributedGradientTape(tape, compression=hvd.Compression.fp16)
        grads = tape.gradient(loss, self.model.trainable_variables)
        self.opt.apply_gradients(zip(grads, self.model.trainable_variables))
        return loss

    def sync(self):
        hvd.broadcast_variables(self.model.variables, root_rank=0)
        hvd.broadcast_variables(self.opt.variables(), root_rank=0)

    def fit(self, ds):
        it = iter(ds)
        start = 0
        if self.manager.latest_checkpoint:
            self.ckpt.restore(self.manager.latest_checkpoint)
            start = int(self.ckpt.epoch.numpy())
            log.info("resumed at epoch %d", start)
        for epoch in range(start, self.cfg["epochs"]):
            total = 0.0
            for i in range(self.cfg["steps_per_epoch"]):
                v1, v2 = next(it)
                loss = self.step(v1, v2)
                if epoch == start and i == 0:
                    self.sync()
                total += float(loss)
            epoch_loss = hvd.allreduce(tf.constant(total / self.cfg["steps_per_epoch"]))
            self.ckpt.epoch.assign(epoch + 1)
            if hvd.rank() == 0:
                log.info("epoch %d  nt-xent %.4f", epoch, float(epoch_loss))
                with self.writer.as_default():
                    tf.summary.scalar("loss", epoch_loss, step=epoch)
                self.manager.save()


def main():
    setup_devices()
    trainer = ContrastiveTrainer(CONFIG)
    trainer.fit(make_dataset(CONFIG))


if __name__ == "__main__":
    main()
