"""keras-gridcast training.

  Slurm (Nurion KNL->GPU partition):
    #SBATCH -N 2 --ntasks-per-node=2 --gres=gpu:2 -t 2-00:00:00
    srun python train.py --config configs/era5_2p5.yaml
  Restarts pick up the newest epochNNN.weights.h5 in train.out.
"""
import keras

from kgc import config, hvd_setup
from kgc.callbacks import AverageLogs, BroadcastInitialState, latest_weights, rank0_checkpoint
from kgc.data import channel_stats, dataset, open_fields
from kgc.model import RolloutModel, build_net

cfg = config.load()
rank, size = hvd_setup.init()

d, t = cfg["data"], cfg["train"]
fields = open_fields(d["path"])
_, nlat, nlon, nc = fields.shape
stats = channel_stats(fields, d["valid_start"])

train_ds = dataset(fields, 0, d["valid_start"], d["rollout"], t["batch"], stats, size, rank, training=True)
valid_ds = dataset(fields, d["valid_start"], d["valid_start"] + d["valid_len"], d["rollout"], t["batch"],
                   stats, size, rank, training=False)
steps = t["steps_per_epoch"] or (d["valid_start"] - d["rollout"]) // (t["batch"] * size)

model = RolloutModel(build_net(nlat, nlon, nc, cfg["model"]["width"], cfg["model"]["depth"]), d["rollout"], nlat)
model.compile(optimizer=keras.optimizers.Adam(t["lr"] * size))
model(next(iter(train_ds))[0][:1])

ckpt_file, initial_epoch = latest_weights(t["out"])
if ckpt_file:
    model.load_weights(ckpt_file)

callbacks = [BroadcastInitialState(), AverageLogs()]
if rank == 0:
    callbacks.append(rank0_checkpoint(t["out"]))

model.fit(train_ds, steps_per_epoch=steps, epochs=t["epochs"], initial_epoch=initial_epoch,
          validation_data=valid_ds, callbacks=callbacks, verbose=0)
