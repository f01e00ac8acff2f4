# pangu-lite training (Ibex, Slurm):
#   #SBATCH --gpus=8 --gpus-per-node=4 --ntasks-per-node=4 --cpus-per-task=8 --time=24:00:00
#   srun python train.py --batch 1 --save-every 2000
import time

import tensorflow as tf
import horovod.tensorflow as hvd

from pangulite.flags import parse_flags
from pangulite.dataio import ERA5Pair, split_for_rank, make_dataset
from pangulite.model import build_model
from pangulite.lr_sched import WarmupCosine
from pangulite.trainer import PanguTrainer

FLAGS = parse_flags()

hvd.init()
for dev in tf.config.list_physical_devices("GPU"):
    tf.config.experimental.set_memory_growth(dev, True)
tf.config.optimizer.set_jit(False)

pair = ERA5Pair(FLAGS.surface, FLAGS.upper, FLAGS.stats)
n_train = FLAGS.train_steps or FLAGS.first_valid_index
train_times = split_for_rank(0, n_train, FLAGS.lead, hvd.rank(), hvd.size())
valid_times = split_for_rank(FLAGS.first_valid_index, pair.sfc.shape[0], FLAGS.lead, hvd.rank(), hvd.size())
train_ds = make_dataset(pair, train_times, FLAGS.lead, FLAGS.batch, shuffle=True)
valid_ds = make_dataset(pair, valid_times[::20], FLAGS.lead, 1, shuffle=False)

model = build_model(pair.sfc.shape[1:], pair.upr.shape[1:], FLAGS.embed)
opt = tf.keras.optimizers.AdamW(learning_rate=WarmupCosine(FLAGS.lr, FLAGS.warmup, FLAGS.total_steps),
                                weight_decay=3e-6)
trainer = PanguTrainer(model, opt, pair.sfc.shape[1], FLAGS.save_dir)
step = trainer.latest_step()

t0 = time.time()
first = True
while step < FLAGS.total_steps:
    for x, y in train_ds:
        loss = trainer.step(x, y, first)
        first = False
        step += 1
        if step % 100 == 0 and hvd.rank() == 0:
            print("step %d loss %.4f  %.2f s/step" % (step, float(loss), (time.time() - t0) / 100), flush=True)
            t0 = time.time()
        if step % FLAGS.save_every == 0:
            trainer.save(step)
        if step % FLAGS.eval_every == 0:
            acc = trainer.z500_acc(valid_ds)
            if hvd.rank() == 0:
                print("step %d  z500 ACC %.4f" % (step, acc), flush=True)
        if step >= FLAGS.total_steps:
            break
