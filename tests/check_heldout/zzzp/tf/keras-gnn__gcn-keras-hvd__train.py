#!/usr/bin/env python
# Kipf & Welling GCN in keras, full-batch, labelled nodes split over horovod workers.
#   horovodrun -np 2 python train.py --dataset citeseer
import numpy as np
import keras
import horovod.tensorflow.keras as hvd

from kgcn.config import parse
from kgcn.hvd_utils import setup, verbose
from kgcn.data import load, gcn_filter, local_mask
from kgcn.layers import to_sparse_tensor
from kgcn.model import build_gcn
from kgcn.callbacks import make_callbacks

args = parse()
rank, size = setup()

x, y, edges, train_mask, val_mask, test_mask = load(args)
a_hat = to_sparse_tensor(gcn_filter(edges, x.shape[0]))
my_mask = local_mask(train_mask, rank, size)
N = x.shape[0]

model = build_gcn(x.shape[1], y.shape[1], a_hat, args.channels, args.dropout, args.l2)
opt = keras.optimizers.Adam(learning_rate=args.learning_rate * size)
opt = hvd.DistributedOptimizer(opt)
model.compile(optimizer=opt, loss="categorical_crossentropy", weighted_metrics=["acc"])

# the whole graph is one batch; the masks pick the nodes that count
model.fit(x, y, sample_weight=my_mask.astype("float32"), batch_size=N, epochs=args.epochs, shuffle=False,
          validation_data=(x, y, val_mask.astype("float32")), callbacks=make_callbacks(args), verbose=verbose())

if rank == 0:
    loss, acc = model.evaluate(x, y, sample_weight=test_mask.astype("float32"), batch_size=N, verbose=0)
    print("test loss %.4f acc %.4f" % (loss, acc))
