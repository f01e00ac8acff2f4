"""BirdCLEF baseline: k-fold mel-CNN, horovod.tensorflow.keras."""
import argparse
import pathlib

import numpy as np
import tensorflow as tf
import keras
import horovod.tensorflow.keras as hvd

from birdnet.data import FoldSplitter, SpecSequence
from birdnet.training.model import mel_cnn
from birdnet.training.callbacks import make_callbacks

ap = argparse.ArgumentParser()
ap.add_argument("--mels", default="cache/mels_128x256.npy")
ap.add_argument("--labels", default="cache/labels_multi_hot.npy")
ap.add_argument("--out", default="out/birdclef")
ap.add_argument("--folds", default="0,1,2,3,4")
ap.add_argument("--n-folds", type=int, default=5)
ap.add_argument("--epochs", type=int, default=30)
ap.add_argument("--batch-size", type=int, default=48)
ap.add_argument("--lr", type=float, default=3e-4)
ap.add_argument("--seed", type=int, default=17)
args = ap.parse_args()

hvd.init()
for g in tf.config.list_physical_devices("GPU"):
    tf.config.experimental.set_memory_growth(g, True)
gpus = tf.config.list_physical_devices("GPU")
if gpus:
    tf.config.set_visible_devices(gpus[hvd.local_rank()], "GPU")
# different crop/roll augmentation on every worker
keras.utils.set_random_seed(args.seed + hvd.rank())

out = pathlib.Path(args.out)
if hvd.rank() == 0:
    out.mkdir(parents=True, exist_ok=True)

mels = np.load(args.mels, mmap_mode="r")
labels = np.load(args.labels).astype("float32")
splitter = FoldSplitter(len(labels), args.n_folds)

scores = {}
for fold in map(int, args.folds.split(",")):
    keras.backend.clear_session()
    tr_idx, va_idx = splitter.split(fold)
    train_seq = SpecSequence(mels, labels, tr_idx, args.batch_size, hvd.rank(), hvd.size())
    val_seq = SpecSequence(mels, labels, va_idx, args.batch_size, hvd.rank(), hvd.size(), train=False)

    model = mel_cnn(mels.shape[1:] + (1,), labels.shape[1])
    optimizer = hvd.DistributedOptimizer(keras.optimizers.AdamW(learning_rate=args.lr, weight_decay=1e-4))
    model.compile(optimizer=optimizer, loss=keras.losses.BinaryCrossentropy(label_smoothing=0.02),
                  metrics=[keras.metrics.AUC(name="auc", multi_label=True)])
    hist = model.fit(train_seq, validation_data=val_seq, epochs=args.epochs,
                     steps_per_epoch=len(tr_idx) // (args.batch_size * hvd.size()),
                     validation_steps=len(va_idx) // (args.batch_size * hvd.size()),
                     callbacks=make_callbacks(str(out / f"melcnn_fold{fold}.keras"), patience=5),
                     verbose=2 if hvd.rank() == 0 else 0)
    scores[fold] = max(hist.history["val_auc"])
    if hvd.rank() == 0:
        print(f"fold {fold}: best val AUC {scores[fold]:.4f}")

if hvd.rank() == 0:
    print("mean CV AUC:", np.mean(list(scores.values())))
