"""Knowledge distillation (ResNet teacher -> small CNN student) on CIFAR-100, Horovod + TF2.

The teacher is a frozen SavedModel trained earlier; only the student is trained here.
Gradients are averaged by hand with hvd.allreduce (we want to clip the *averaged* gradient).
"""
import os
import json
import time

import numpy as np
import tensorflow as tf
import horovod.tensorflow as hvd

CONFIG = {
    "teacher": "models/teacher_resnet56",
    "data": "data/cifar100.npz",
    "out": "runs/distill",
    "epochs": 60,
    "batch_size": 128,
    "lr": 0.05,
    "temperature": 4.0,
    "alpha": 0.9,
    "clip_norm": 5.0,
}


class DistMean:
    """Running mean that is reduced over all workers when read."""

    def __init__(self, name):
        self.name = name
        self.total = 0.0
        self.count = 0.0

    def update(self, value, n):
        self.total += float(value) * n
        self.count += n

    def reduce(self):
        t = hvd.allreduce(tf.constant([self.total, self.count], tf.float64),
                          op=hvd.Sum, name=self.name)
        return float(t[0] / tf.maximum(t[1], 1.0))


def student_net(num_classes=100):
    inp = tf.keras.Input((32, 32, 3))
    x = inp
    for f in (32, 64, 128):
        x = tf.keras.layers.Conv2D(f, 3, padding="same", use_bias=False)(x)
        x = tf.keras.layers.BatchNormalization()(x)
        x = tf.keras.layers.ReLU()(x)
        x = tf.keras.layers.MaxPool2D()(x)
    x = tf.keras.layers.GlobalAveragePooling2D()(x)
    return tf.keras.Model(inp, tf.keras.layers.Dense(num_classes)(x), name="student")


class DistillTrainer:
    def __init__(self, cfg):
        self.cfg = cfg
        self.teacher = tf.keras.models.load_model(cfg["teacher"], compile=False)
        self.teacher.trainable = False
        self.student = student_net()

        with np.load(cfg["data"]) as d:
            xtr, ytr = d["x_train"].astype("float32") / 255.0, d["y_train"].ravel()
            xva, yva = d["x_test"].astype("float32") / 255.0, d["y_test"].ravel()
        # static split: worker r takes every size-th example starting at r
        xtr, ytr = xtr[hvd.rank()::hvd.size()], ytr[hvd.rank()::hvd.size()]
        xva, yva = xva[hvd.rank()::hvd.size()], yva[hvd.rank()::hvd.size()]
        self.train_ds = (tf.data.Dataset.from_tensor_slices((xtr, ytr))
                         .shuffle(len(xtr)).batch(cfg["batch_size"]).prefetch(2))
        self.val_ds = tf.data.Dataset.from_tensor_slices((xva, yva)).batch(256)
        steps = int(np.ceil(len(xtr) / cfg["batch_size"]))

        lr = cfg["lr"] * hvd.size()
        sched = tf.keras.optimizers.schedules.CosineDecay(
            initial_learning_rate=lr, decay_steps=cfg["epochs"] * steps)
        self.opt = tf.keras.optimizers.SGD(sched, momentum=0.9)

        self.ckpt = tf.train.Checkpoint(student=self.student, opt=self.opt,
                                        epoch=tf.Variable(0, dtype=tf.int64))
        self.manager = tf.train.CheckpointManager(self.ckpt, cfg["out"], max_to_keep=2)
        # every worker reads the same checkpoint file, then rank 0's copy wins anyway
        self.ckpt.restore(self.manager.latest_checkpoint).expect_partial()
        hvd.broadcast_variables(self.student.variables, root_rank=0)
        self.start_epoch = int(self.ckpt.epoch.numpy())

    def kd_loss(self, y, s_logits, t_logits):
        T, a = self.cfg["temperature"], self.cfg["alpha"]
        soft = tf.keras.losses.kl_divergence(tf.nn.softmax(t_logits / T), tf.nn.softmax(s_logits / T))
        hard = tf.keras.losses.sparse_categorical_crossentropy(y, s_logits, from_logits=True)
        return tf.reduce_mean(a * (T * T) * soft + (1.0 - a) * hard)

    @tf.function
    def step(self, x, y):
        t_logits = self.teacher(x, training=False)
        with tf.GradientTape() as tape:
            s_logits = self.student(x, training=True)
            loss = self.kd_loss(y, s_logits, t_logits)
        grads = tape.gradient(loss, self.student.trainable_variables)
        grads = [hvd.allreduce(g, name="g%d" % i) for i, g in enumerate(grads)]
        grads, _ = tf.clip_by_global_norm(grads, self.cfg["clip_norm"])
        self.opt.apply_gradients(zip(grads, self.student.trainable_variables))
        return loss

    def evaluate(self):
        acc = DistMean("val_acc")
        for x, y in self.val_ds:
            pred = tf.argmax(self.student(x, training=False), axis=1)
            acc.update(tf.reduce_mean(tf.cast(pred == tf.cast(y, tf.int64), tf.float32)), len(y))
        return acc.reduce()

    def fit(self):
        for epoch in range(self.start_epoch, self.cfg["epochs"]):
            t0 = time.time()
            meter = DistMean("train_loss")
            for x, y in self.train_ds:
                meter.update(self.step(x, y), len(y))
            # shards can differ by one batch: let finished ranks wait for the others
            hvd.join()
            train_loss = meter.reduce()
            val_acc = self.evaluate()
            self.ckpt.epoch.assign(epoch + 1)
            if hvd.rank() == 0:
                self.manager.save()
                print(json.dumps({"epoch": epoch, "train_loss": round(train_loss, 4),
                                  "val_acc": round(val_acc, 4), "sec": round(time.time() - t0, 1)}))


def main():
    hvd.init()
    gpus = tf.config.list_physical_devices("GPU")
    if gpus:
        tf.config.experimental.set_memory_growth(gpus[hvd.local_rank()], True)
        tf.config.set_visible_devices(gpus[hvd.local_rank()], "GPU")
    os.makedirs(CONFIG["out"], exist_ok=True)
    DistillTrainer(CONFIG).fit()


if __name__ == "__main__":
    main()
