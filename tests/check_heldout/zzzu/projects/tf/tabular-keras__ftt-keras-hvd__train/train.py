"""FT-Transformer (Gorishniy et al.) in Keras 3 + horovod.

mpirun -np 4 python train.py -c configs/default.yaml
"""
import math

import keras
import tensorflow as tf
import horovod.tensorflow.keras as hvd

from fttk import build_ft_transformer
from fttk.config import get_config
from fttk.data import load_split, Encoder, make_dataset
from fttk.callbacks import make_callbacks

hvd.init()
gpus = tf.config.list_physical_devices("GPU")
for g in gpus:
    tf.config.experimental.set_memory_growth(g, True)
if gpus:
    tf.config.set_visible_devices(gpus[hvd.local_rank()], "GPU")

cfg = get_config()
keras.utils.set_random_seed(cfg.seed)

train_df, valid_df = load_split(cfg.csv, cfg.target, cfg.seed)
enc = Encoder(cfg.categorical, cfg.target).fit(train_df)   # deterministic -> same on every worker
x_tr, y_tr = enc.arrays(train_df)
x_va, y_va = enc.arrays(valid_df)

shard = (hvd.size(), hvd.rank())
train_ds = make_dataset(x_tr, y_tr, cfg.batch_size, shard=shard, shuffle=True, seed=cfg.seed, repeat=True)
valid_ds = make_dataset(x_va, y_va, 2 * cfg.batch_size, shard=shard)
steps_per_epoch = math.ceil(len(y_tr) / (cfg.batch_size * hvd.size()))

model = build_ft_transformer(x_tr["num"].shape[1], enc.vocab_sizes(), cfg.d_token, cfg.depth, cfg.heads,
                             cfg.attn_dropout, cfg.ff_dropout)
scaled_lr = cfg.base_lr * hvd.size()
opt = hvd.DistributedOptimizer(keras.optimizers.AdamW(learning_rate=scaled_lr, weight_decay=1e-5))
model.compile(optimizer=opt, loss=keras.losses.BinaryCrossentropy(from_logits=True),
              metrics=[keras.metrics.AUC(from_logits=True, name="auc")])

model.fit(train_ds, steps_per_epoch=steps_per_epoch, epochs=cfg.epochs, validation_data=valid_ds,
          callbacks=make_callbacks(cfg, steps_per_epoch, scaled_lr), verbose=2 if hvd.rank() == 0 else 0)

if hvd.rank() == 0:
    model.save("ftt_final.keras")
