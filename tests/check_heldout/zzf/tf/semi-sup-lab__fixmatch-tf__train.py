# FixMatch (Sohn et al. 2020) in TF2 with a custom GradientTape loop, multi-GPU through Horovod.
# python train.py --n-labeled 4000 --epochs 200   (launch with horovodrun / mpirun)
import argparse
import os
import time

import numpy as np
import tensorflow as tf
import keras
import horovod.tensorflow as hvd

p = argparse.ArgumentParser()
p.add_argument("--n-labeled", type=int, default=4000)
p.add_argument("--batch", type=int, default=64)
p.add_argument("--mu", type=int, default=7, help="unlabeled batch = mu * batch")
p.add_argument("--lr", type=float, default=0.03)
p.add_argument("--epochs", type=int, default=200)
p.add_argument("--steps-per-epoch", type=int, default=1024)
p.add_argument("--threshold", type=float, default=0.95)
p.add_argument("--lambda-u", type=float, default=1.0)
p.add_argument("--ckpt-dir", default="ckpt/fixmatch")
FLAGS = p.parse_args()

hvd.init()
gpus = tf.config.experimental.list_physical_devices("GPU")
for g in gpus:
    tf.config.experimental.set_memory_growth(g, True)
if gpus:
    tf.config.experimental.set_visible_devices(gpus[hvd.local_rank()], "GPU")

(x_train, y_train), (x_test, y_test) = keras.datasets.cifar10.load_data()
x_train, x_test = x_train.astype("float32") / 255.0, x_test.astype("float32") / 255.0
y_train, y_test = y_train.ravel(), y_test.ravel()
rng = np.random.RandomState(0)
lab_idx = np.concatenate([rng.choice(np.where(y_train == c)[0], FLAGS.n_labeled // 10, replace=False)
                          for c in range(10)])


def weak_aug(x):
    x = tf.image.random_flip_left_right(x)
    x = tf.image.pad_to_bounding_box(x, 4, 4, 40, 40)
    return tf.image.random_crop(x, [32, 32, 3])


def strong_aug(x):
    x = weak_aug(x)
    x = tf.image.random_brightness(x, 0.4)
    x = tf.image.random_contrast(x, 0.6, 1.4)
    x = tf.image.random_saturation(x, 0.6, 1.4)
    # cutout, 16x16
    cy = tf.random.uniform([], 0, 16, tf.int32)
    cx = tf.random.uniform([], 0, 16, tf.int32)
    hole = tf.pad(tf.zeros([16, 16, 3]), [[cy, 16 - cy], [cx, 16 - cx], [0, 0]], constant_values=1.0)
    return tf.clip_by_value(x, 0.0, 1.0) * hole


labeled = (tf.data.Dataset.from_tensor_slices((x_train[lab_idx], y_train[lab_idx]))
           .shard(hvd.size(), hvd.rank())
           .repeat().shuffle(5000)
           .map(lambda x, y: (weak_aug(x), y), num_parallel_calls=tf.data.AUTOTUNE)
           .batch(FLAGS.batch, drop_remainder=True))
unlabeled = (tf.data.Dataset.from_tensor_slices(x_train)
             .shuffle(50000)
             .shard(hvd.size(), hvd.rank())
             .repeat()
             .map(lambda x: (weak_aug(x), strong_aug(x)), num_parallel_calls=tf.data.AUTOTUNE)
             .batch(FLAGS.batch * FLAGS.mu, drop_remainder=True))
test = tf.data.Dataset.from_tensor_slices((x_test, y_test)).batch(500)
train_iter = iter(tf.data.Dataset.zip((labeled, unlabeled)).prefetch(tf.data.AUTOTUNE))


def wide_resnet(depth=28, k=2, num_classes=10):
    n = (depth - 4) // 6
    inp = keras.Input((32, 32, 3))
    x = keras.layers.Conv2D(16, 3, padding="same")(inp)
    for i, w in enumerate([16 * k, 32 * k, 64 * k]):
        for j in range(n):
            s = 2 if (j == 0 and i > 0) else 1
            h = keras.layers.ReLU()(keras.layers.BatchNormalization(momentum=0.999)(x))
            h = keras.layers.Conv2D(w, 3, strides=s, padding="same")(h)
            h = keras.layers.ReLU()(keras.layers.BatchNormalization(momentum=0.999)(h))
            h = keras.layers.Conv2D(w, 3, padding="same")(h)
            if x.shape[-1] != w or s != 1:
                x = keras.layers.Conv2D(w, 1, strides=s)(x)
            x = keras.layers.Add()([x, h])
    x = keras.layers.GlobalAveragePooling2D()(keras.layers.ReLU()(keras.layers.BatchNormalization()(x)))
    return keras.Model(inp, keras.layers.Dense(num_classes)(x))


model = wide_resnet()
ema_model = wide_resnet()
ema_model.set_weights(model.get_weights())
total_steps = FLAGS.epochs * FLAGS.steps_per_epoch
schedule = keras.optimizers.schedules.CosineDecay(FLAGS.lr * hvd.size(), total_steps, alpha=0.0)
opt = keras.optimizers.SGD(schedule, momentum=0.9, nesterov=True)
ce = keras.losses.SparseCategoricalCrossentropy(from_logits=True, reduction="none")

ckpt = tf.train.Checkpoint(model=model, ema=ema_model, opt=opt)
manager = tf.train.CheckpointManager(ckpt, FLAGS.ckpt_dir, max_to_keep=3)


@tf.function
def train_step(xl, yl, xw, xs):
    with tf.GradientTape() as tape:
        logits = model(tf.concat([xl, xw, xs], 0), training=True)
        n = tf.shape(xl)[0]
        m = tf.shape(xw)[0]
        l_logits, w_logits, s_logits = logits[:n], logits[n:n + m], logits[n + m:]
        loss_x = tf.reduce_mean(ce(yl, l_logits))
        probs = tf.nn.softmax(tf.stop_gradient(w_logits))
        mask = tf.cast(tf.reduce_max(probs, 1) >= FLAGS.threshold, tf.float32)
        loss_u = tf.reduce_mean(ce(tf.argmax(probs, 1), s_logits) * mask)
        wd = 5e-4 * tf.add_n([tf.nn.l2_loss(v) for v in model.trainable_variables if "kernel" in v.name])
        loss = loss_x + FLAGS.lambda_u * loss_u + wd
    tape = hvd.DistributedGradientTape(tape)
    grads = tape.gradient(loss, model.trainable_variables)
    opt.apply_gradients(zip(grads, model.trainable_variables))
    for ev, v in zip(ema_model.variables, model.variables):
        ev.assign(0.999 * ev + 0.001 * v)
    return loss_x, loss_u, tf.reduce_mean(mask)


def evaluate(net):
    acc = keras.metrics.SparseCategoricalAccuracy()
    for x, y in test:
        acc.update_state(y, net(x, training=False))
    return float(acc.result())


for epoch in range(FLAGS.epochs):
    t0 = time.time()
    for step in range(FLAGS.steps_per_epoch):
        (xl, yl), (xw, xs) = next(train_iter)
        lx, lu, mask = train_step(xl, yl, xw, xs)
        if epoch == 0 and step == 0:
            hvd.broadcast_variables(model.variables, root=0)
            hvd.broadcast_variables(ema_model.variables, root=0)
            hvd.broadcast_variables(opt.variables, root=0)
    if hvd.rank() == 0:
        acc = evaluate(ema_model)
        print(f"epoch {epoch}: Lx {lx:.3f} Lu {lu:.3f} mask {mask:.2f} ema-acc {acc:.4f} ({time.time() - t0:.0f}s)")
        manager.save(checkpoint_number=epoch)
