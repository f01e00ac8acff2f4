"""TF2 CNN benchmark with a custom training loop (GradientTape + Horovod).

Polaris:  mpiexec -n 8 --ppn 4 --depth 8 --cpu-bind depth ./set_affinity_gpu_polaris.sh \
              python tf_cnn_benchmark.py --batch-size 256
"""
import time

import tensorflow as tf
import horovod.tensorflow as hvd

from bench.cfg import BenchConfig
from bench.data import get_dataset
from bench.hooks import CheckpointHook, Timer
from bench.model import build_cnn

cfg = BenchConfig.from_cli()

hvd.init()
tf.config.threading.set_intra_op_parallelism_threads(cfg.intra_threads)
tf.config.threading.set_inter_op_parallelism_threads(cfg.inter_threads)
gpus = tf.config.list_physical_devices("GPU")
for gpu in gpus:
    tf.config.experimental.set_memory_growth(gpu, True)
if gpus:
    tf.config.set_visible_devices(gpus[hvd.local_rank()], "GPU")

train_ds, test_ds, info = get_dataset(cfg, hvd.rank(), hvd.size())
model = build_cnn(info.shape, info.classes)
opt = tf.keras.optimizers.SGD(learning_rate=cfg.lr * hvd.size(), momentum=0.9)
loss_fn = tf.keras.losses.SparseCategoricalCrossentropy(from_logits=True)
ckpt = CheckpointHook(cfg.ckpt_dir, model, opt, is_chief=(hvd.rank() == 0))


@tf.function
def train_step(images, labels, first_batch):
    with tf.GradientTape() as tape:
        logits = model(images, training=True)
        loss = loss_fn(labels, logits)
    tape = hvd.DistributedGradientTape(tape)
    grads = tape.gradient(loss, model.trainable_variables)
    opt.apply_gradients(zip(grads, model.trainable_variables))
    if first_batch:
        hvd.broadcast_variables(model.variables, root_rank=0)
        hvd.broadcast_variables(opt.variables, root_rank=0)
    acc = tf.reduce_mean(tf.cast(tf.equal(tf.argmax(logits, 1, output_type=tf.int32), labels), tf.float32))
    return loss, acc


@tf.function
def eval_step(images, labels):
    logits = model(images, training=False)
    correct = tf.reduce_sum(tf.cast(tf.equal(tf.argmax(logits, 1, output_type=tf.int32), labels), tf.float32))
    return correct, tf.cast(tf.shape(labels)[0], tf.float32)


timer = Timer(warmup_steps=cfg.warmup_steps)
it = iter(train_ds)
for epoch in range(cfg.epochs):
    loss_sum = acc_sum = 0.0
    for step in range(cfg.steps_per_epoch):
        images, labels = next(it)
        timer.tick()
        loss, acc = train_step(images, labels, epoch == 0 and step == 0)
        timer.tock(cfg.batch_size, sync=loss)
        loss_sum += float(loss)
        acc_sum += float(acc)

    # every rank ran the same number of steps, so the mean of rank means is the global mean
    train_loss = hvd.allreduce(tf.constant(loss_sum / cfg.steps_per_epoch), name="train_loss")
    train_acc = hvd.allreduce(tf.constant(acc_sum / cfg.steps_per_epoch), name="train_acc")
    rate = hvd.allreduce(tf.constant(timer.rate()), op=hvd.Sum, name="img_s")

    correct = seen = 0.0
    for images, labels in test_ds:
        c, n = eval_step(images, labels)
        correct += float(c)
        seen += float(n)
    totals = hvd.allreduce(tf.constant([correct, seen]), op=hvd.Sum, name="eval_totals")

    if hvd.rank() == 0:
        print(f"epoch {epoch}: loss {float(train_loss):.4f} acc {float(train_acc):.4f} "
              f"test_acc {float(totals[0] / totals[1]):.4f} | {float(rate):.1f} img/s on {hvd.size()} ranks",
              flush=True)
    ckpt.save(epoch)

if hvd.rank() == 0:
    timer.report(hvd.size(), cfg.batch_size, cfg.json_out)
