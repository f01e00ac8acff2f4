"""TempCNN crop classification - TF2 eager port with Horovod.

The TF1 version used tf.train.MomentumOptimizer + hvd.DistributedOptimizer inside
a MonitoredTrainingSession; the optimizer setup is kept so the two runs match.
"""
import os

from absl import app, flags
import tensorflow as tf
import horovod.tensorflow as hvd

from cropnet.utils import seed_everything, get_logger
from cropnet.data import train_dataset, eval_dataset
from cropnet.model import TempCNN
from cropnet.evaluation import evaluate

FLAGS = flags.FLAGS
flags.DEFINE_string("train_file", "data/bavaria_train.npz", "training pixels")
flags.DEFINE_string("val_file", "data/bavaria_val.npz", "validation pixels")
flags.DEFINE_string("ckpt_dir", "ckpt/tempcnn", "checkpoint directory")
flags.DEFINE_integer("batch_size", 512, "batch size per worker")
flags.DEFINE_float("lr", 0.01, "base learning rate (one worker)")
flags.DEFINE_integer("epochs", 40, "epochs")
flags.DEFINE_integer("num_classes", 17, "crop classes")
flags.DEFINE_integer("seed", 0, "random seed")


def main(_):
    hvd.init()
    gpus = tf.config.experimental.list_physical_devices("GPU")
    for gpu in gpus:
        tf.config.experimental.set_memory_growth(gpu, True)
    if gpus:
        tf.config.experimental.set_visible_devices(gpus[hvd.local_rank()], "GPU")

    seed_everything(FLAGS.seed + hvd.rank())
    log = get_logger(hvd.rank())

    train_ds, n_local = train_dataset(FLAGS.train_file, FLAGS.batch_size, hvd.rank(), hvd.size())
    val_ds = eval_dataset(FLAGS.val_file, 4096)

    model = TempCNN(num_classes=FLAGS.num_classes)
    opt = tf.compat.v1.train.MomentumOptimizer(FLAGS.lr * hvd.size(), momentum=0.9)
    opt = hvd.DistributedOptimizer(opt)

    ckpt = tf.train.Checkpoint(model=model)
    hvd.broadcast_variables(model.trainable_variables, root_rank=0)

    @tf.function
    def train_step(x, y):
        with tf.GradientTape() as tape:
            logits = model(x, training=True)
            loss = tf.reduce_mean(tf.nn.sparse_softmax_cross_entropy_with_logits(labels=y, logits=logits))
        grads = tape.gradient(loss, model.trainable_variables)
        opt.apply_gradients(zip(grads, model.trainable_variables))
        return loss

    for epoch in range(FLAGS.epochs):
        total, steps = 0.0, 0
        for x, y in train_ds:
            total += float(train_step(x, y))
            steps += 1
        metrics = evaluate(model, val_ds, FLAGS.num_classes)
        log.info("epoch %d: loss %.4f OA %.4f mRecall %.4f (%d local samples)", epoch, total / max(steps, 1),
                 metrics["overall_accuracy"], metrics["mean_recall"], n_local)
        if hvd.rank() == 0:
            ckpt.save(os.path.join(FLAGS.ckpt_dir, "ckpt"))


if __name__ == "__main__":
    app.run(main)
