# xDeepFM-lite (CIN + DNN) on preprocessed Criteo arrays, keras.fit + Horovod.
# Inputs: dense.npy (N x 13 float), sparse.npy (N x 26 int), label.npy (N,)
import argparse
import os

import numpy as np
import tensorflow as tf
import keras
from keras import layers, ops
import horovod.tensorflow.keras as hvd

hvd.init()

# let every worker grow its own GPU memory
for gpu in tf.config.list_physical_devices("GPU"):
    tf.config.experimental.set_memory_growth(gpu, True)

parser = argparse.ArgumentParser()
parser.add_argument("--data-dir", default="/scratch/criteo_np")
parser.add_argument("--vocab", type=int, default=200_000)
parser.add_argument("--embed", type=int, default=10)
parser.add_argument("--cin", type=int, nargs="+", default=[100, 100])
parser.add_argument("--batch", type=int, default=2048)
parser.add_argument("--lr", type=float, default=1e-3)
parser.add_argument("--epochs", type=int, default=8)
parser.add_argument("--val-frac", type=float, default=0.05)
parser.add_argument("--out", default="xdeepfm_out")
args = parser.parse_args()


class CIN(layers.Layer):
    """Compressed Interaction Network: explicit vector-wise feature crosses."""

    def __init__(self, sizes, **kw):
        super().__init__(**kw)
        self.sizes = sizes

    def build(self, shape):
        self.m, self.d = shape[1], shape[2]
        prev = self.m
        self.filters = []
        for h in self.sizes:
            self.filters.append(self.add_weight(shape=(self.m * prev, h), initializer="glorot_uniform"))
            prev = h

    def call(self, x0):
        xk, pooled, prev = x0, [], self.m
        for w in self.filters:
            z = ops.einsum("bmd,bhd->bmhd", x0, xk)
            z = ops.reshape(z, (-1, self.m * prev, self.d))
            xk = ops.einsum("bnd,nh->bhd", z, w)
            pooled.append(ops.sum(xk, axis=2))
            prev = w.shape[1]
        return ops.concatenate(pooled, axis=1)


def build_model(num_dense, num_sparse, vocab, embed, cin_sizes):
    dense_in = keras.Input((num_dense,), name="dense_feats")
    sparse_in = keras.Input((num_sparse,), dtype="int32", name="cat_feats")
    emb = layers.Embedding(vocab, embed)(sparse_in)
    cin = CIN(cin_sizes)(emb)
    dnn = layers.Concatenate()([layers.Flatten()(emb), dense_in])
    for units in (256, 128):
        dnn = layers.Dense(units, activation="relu")(dnn)
    logit = layers.Dense(1)(layers.Concatenate()([cin, dnn, dense_in]))
    return keras.Model({"dense_feats": dense_in, "cat_feats": sparse_in}, layers.Activation("sigmoid")(logit))


dense = np.load(os.path.join(args.data_dir, "dense.npy")).astype("float32")
sparse = (np.load(os.path.join(args.data_dir, "sparse.npy")) % args.vocab).astype("int32")
label = np.load(os.path.join(args.data_dir, "label.npy")).astype("float32")
dense = np.log1p(np.maximum(dense, 0))

n_val = int(len(label) * args.val_frac)
idx = np.arange(len(label))
tr_idx, va_idx = idx[n_val:], idx[:n_val]
# every worker takes every size-th row
tr_idx = tr_idx[hvd.rank()::hvd.size()]
va_idx = va_idx[hvd.rank()::hvd.size()]

x_train = {"dense_feats": dense[tr_idx], "cat_feats": sparse[tr_idx]}
x_val = {"dense_feats": dense[va_idx], "cat_feats": sparse[va_idx]}

model = build_model(13, 26, args.vocab, args.embed, args.cin)
opt = keras.optimizers.Adam(learning_rate=args.lr * hvd.size())
opt = hvd.DistributedOptimizer(opt)
model.compile(opt, loss="binary_crossentropy", metrics=[keras.metrics.AUC(name="auc")])

callbacks = [
    hvd.callbacks.BroadcastGlobalVariablesCallback(0),
    hvd.callbacks.LearningRateWarmupCallback(warmup_epochs=2, verbose=1),
    keras.callbacks.EarlyStopping(monitor="val_auc", mode="max", patience=2),
]
if hvd.rank() == 0:
    os.makedirs(args.out, exist_ok=True)
    callbacks.append(keras.callbacks.ModelCheckpoint(os.path.join(args.out, "best.weights.h5"),
                                                     monitor="val_auc", mode="max",
                                                     save_best_only=True, save_weights_only=True))

steps = len(tr_idx) // args.batch
hist = model.fit(x_train, label[tr_idx], batch_size=args.batch, epochs=args.epochs,
                 steps_per_epoch=steps, validation_data=(x_val, label[va_idx]),
                 callbacks=callbacks, verbose=1 if hvd.rank() == 0 else 0)

if hvd.rank() == 0:
    print("best val_auc: %.4f" % max(hist.history["val_auc"]))
