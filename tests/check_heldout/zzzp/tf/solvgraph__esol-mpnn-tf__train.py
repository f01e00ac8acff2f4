# MPNN regression on ESOL-like data; TF2 custom loop, horovod.
#    horovodrun -np 4 python train.py --dataset esol
import numpy as np
import tensorflow as tf
import horovod.tensorflow as hvd

from esolgnn.options import get_options
from esolgnn.graphs import load_graphs, batched
from esolgnn.net import MPNN
from esolgnn.trainer import Trainer
from esolgnn.evaluator import Evaluator
from esolgnn.ckpt import BestSaver

opt = get_options()
hvd.init()
for g in tf.config.list_physical_devices("GPU"):
    tf.config.experimental.set_memory_growth(g, True)
gpus = tf.config.list_physical_devices("GPU")
if gpus:
    tf.config.set_visible_devices(gpus[hvd.local_rank()], "GPU")

graphs = load_graphs(opt)
ys = np.array([g["y"] for g in graphs], "float32")
y_mean, y_std = ys.mean(), ys.std()
for g in graphs:
    g["y"] = (g["y"] - y_mean) / y_std

# fixed split by index range: last val_frac of the list is validation
n_val = int(len(graphs) * opt.val_frac)
n_train = len(graphs) - n_val

train_ids = tf.data.Dataset.range(n_train).shuffle(n_train).shard(hvd.size(), hvd.rank())
val_ids = tf.data.Dataset.range(n_train, len(graphs)).shard(hvd.size(), hvd.rank())

model = MPNN(opt.hidden, opt.steps)
trainer = Trainer(model, opt.lr)
evaluator = Evaluator(model, y_mean, y_std)
saver = BestSaver(model, trainer.opt, opt.save_dir)

for epoch in range(1, opt.epochs + 1):
    losses = [float(trainer.train_step(b, y)) for b, y in batched(graphs, train_ids, opt.batch_size)]
    res = evaluator.run(batched(graphs, val_ids, opt.batch_size))
    if hvd.rank() == 0:
        print("epoch %3d  train mse %.4f  val MAE %.4f  RMSE %.4f" % (epoch, np.mean(losses), res["mae"], res["rmse"]))
    saver.maybe_save(res["mae"], epoch)
