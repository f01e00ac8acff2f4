#!/usr/bin/env python
# WRF CONUS 3 km emulator.
#   Casper/Derecho (PBS): mpiexec -n 8 --ppn 4 python train.py -c configs/conus3km.yaml
import tensorflow as tf
import horovod.tensorflow as hvd

from wrfemu.settings import get_config
from wrfemu.pipeline import FieldStore, time_index_dataset, to_samples
from wrfemu.network import unet
from wrfemu.optim import make_optimizer
from wrfemu.engine import Engine

cfg = get_config()

hvd.init()
gpus = tf.config.list_physical_devices("GPU")
for gpu in gpus:
    tf.config.experimental.set_memory_growth(gpu, True)
if gpus:
    tf.config.set_visible_devices(gpus[hvd.local_rank()], "GPU")

dc = cfg["data"]
store = FieldStore(dc["zarr_like_dir"], dc["variables"])
lead, bs = dc["lead_steps"], cfg["optim"]["batch_size"]

train_idx = time_index_dataset(*dc["train_range"], lead)
train_idx = train_idx.shuffle(50000, reshuffle_each_iteration=True).shard(hvd.size(), hvd.rank())
train_ds = to_samples(train_idx, store, lead, bs)

n_valid = (dc["valid_range"][1] - dc["valid_range"][0] - lead) // hvd.size() * hvd.size()
valid_idx = time_index_dataset(dc["valid_range"][0], dc["valid_range"][0] + n_valid + lead, lead)
valid_ds = to_samples(valid_idx.shard(hvd.size(), hvd.rank()), store, lead, bs)

ny, nx = store.shape[1:]
model = unet(ny, nx, len(dc["variables"]), cfg["model"]["base"], cfg["model"]["levels"])
steps_per_epoch = (dc["train_range"][1] - dc["train_range"][0]) // (bs * hvd.size())
opt = make_optimizer(cfg, steps_per_epoch)

engine = Engine(model, opt, cfg)
start = engine.restore()
if hvd.rank() == 0:
    model.summary()
    print("workers", hvd.size(), "start epoch", start, flush=True)
engine.fit(train_ds, valid_ds, start)
