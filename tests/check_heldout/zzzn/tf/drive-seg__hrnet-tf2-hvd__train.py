"""HRNet-W18-small, TF2 custom loop + horovod.

horovodrun -np 8 python train.py --records /data/tfrecords/cityscapes
"""
import os

import tensorflow as tf
import keras
import horovod.tensorflow as hvd

from hrseg.options import get_options, NUM_CLASSES
from hrseg import dataset
from hrseg.network import hrnet_w18_small
from hrseg.trainer import SegTrainer
from hrseg.evaluation import evaluate

opts = get_options()
hvd.init()
for g in tf.config.list_physical_devices("GPU"):
    tf.config.experimental.set_memory_growth(g, True)
gpus = tf.config.list_physical_devices("GPU")
if gpus:
    tf.config.set_visible_devices(gpus[hvd.local_rank()], "GPU")

num_classes = NUM_CLASSES[opts.dataset]
train_ds = dataset.build(opts, "train", training=True)
val_ds = dataset.build(opts, "val", training=False)
iters_per_epoch = sum(1 for _ in train_ds)

model = hrnet_w18_small(num_classes)
# same starting point everywhere
hvd.broadcast_variables(model.variables, root_rank=0)
if hvd.rank() == 0 and opts.pretrained:
    # the imagenet weights are only downloaded on the first node
    model.load_weights(opts.pretrained, skip_mismatch=True)

lr = keras.optimizers.schedules.PolynomialDecay(opts.lr * hvd.size(), opts.epochs * iters_per_epoch,
                                                end_learning_rate=0.0, power=0.9)
optimizer = keras.optimizers.SGD(learning_rate=lr, momentum=0.9, nesterov=False)
trainer = SegTrainer(model, optimizer, wd=opts.wd, fp16_allreduce=opts.fp16_allreduce)

ckpt = tf.train.Checkpoint(model=model, optimizer=optimizer)
manager = tf.train.CheckpointManager(ckpt, opts.ckpt_dir, max_to_keep=3)
best_miou = 0.0
for epoch in range(opts.epochs):
    trainer.train_epoch(train_ds, epoch)
    if (epoch + 1) % opts.eval_freq == 0 or epoch + 1 == opts.epochs:
        miou, per_class = evaluate(model, val_ds, num_classes)
        if hvd.rank() == 0:
            print("epoch %d mIoU %.4f" % (epoch, miou))
            manager.save(checkpoint_number=epoch)
            if miou > best_miou:
                best_miou = miou
                model.save_weights(os.path.join(opts.ckpt_dir, "best_miou.weights.h5"))
