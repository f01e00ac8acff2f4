"""Character-level LSTM language model (tf.keras + Horovod) that can be
killed by the scheduler and resubmitted: it resumes from the newest
checkpoint in --ckpt-dir.

    sbatch --requeue run_charlstm.sh   # srun python 10_keras_charlstm_resume.py ...
"""
import argparse
import glob
import os
import re

import numpy as np
import tensorflow as tf
import horovod.tensorflow.keras as hvd

p = argparse.ArgumentParser()
p.add_argument("--text", default="shakespeare.txt")
p.add_argument("--seq-len", type=int, default=100)
p.add_argument("--batch-size", type=int, default=64)
p.add_argument("--epochs", type=int, default=60)
p.add_argument("--lr", type=float, default=2e-3)
p.add_argument("--warmup-epochs", type=int, default=2)
p.add_argument("--ckpt-dir", default="charlstm_ckpt")
args = p.parse_args()

hvd.init()
physical = tf.config.list_physical_devices("GPU")
for d in physical:
    tf.config.experimental.set_memory_growth(d, True)
if physical:
    tf.config.set_visible_devices(physical[hvd.local_rank()], "GPU")

# ------------------------------------------------------------------ data
text = open(args.text, encoding="utf-8").read()
vocab = sorted(set(text))
char2idx = {c: i for i, c in enumerate(vocab)}
encoded = np.array([char2idx[c] for c in text], dtype=np.int32)

n_seq = (len(encoded) - 1) // (args.seq_len + 1)
chunks = tf.data.Dataset.from_tensor_slices(encoded).batch(args.seq_len + 1, drop_remainder=True)
pairs = chunks.map(lambda c: (c[:-1], c[1:]))
pairs = pairs.shard(hvd.size(), hvd.rank())
train = (pairs.shuffle(10000).batch(args.batch_size, drop_remainder=True)
         .repeat().prefetch(tf.data.AUTOTUNE))
steps_per_epoch = (n_seq // hvd.size()) // args.batch_size

# ------------------------------------------------------------------ model
model = tf.keras.Sequential([
    tf.keras.Input(shape=(None,), dtype="int32"),
    tf.keras.layers.Embedding(len(vocab), 256),
    tf.keras.layers.LSTM(1024, return_sequences=True),
    tf.keras.layers.Dropout(0.2),
    tf.keras.layers.Dense(len(vocab)),
])

# ------------------------------------------------------------------ resume
resume_epoch = 0
latest = None
if hvd.rank() == 0:
    files = glob.glob(os.path.join(args.ckpt_dir, "epoch-*.h5"))
    if files:
        latest = max(files, key=lambda f: int(re.search(r"epoch-(\d+)", f).group(1)))
        resume_epoch = int(re.search(r"epoch-(\d+)", latest).group(1))
# everybody needs to know where we start
resume_epoch = hvd.broadcast_object(resume_epoch, root_rank=0, name="resume_epoch")

if resume_epoch > 0 and hvd.rank() == 0:
    # only rank 0 reads the file; BroadcastGlobalVariablesCallback hands the
    # weights to the others when fit() starts
    model.load_weights(latest)
    print(f"resuming from {latest} (epoch {resume_epoch})")

scaled_lr = args.lr * hvd.size()
opt = hvd.DistributedOptimizer(tf.keras.optimizers.Adam(learning_rate=scaled_lr, clipnorm=5.0))
model.compile(optimizer=opt,
              loss=tf.keras.losses.SparseCategoricalCrossentropy(from_logits=True),
              metrics=["sparse_categorical_accuracy"])

callbacks = [
    hvd.callbacks.BroadcastGlobalVariablesCallback(0),
    hvd.callbacks.MetricAverageCallback(),
    hvd.callbacks.LearningRateWarmupCallback(initial_lr=scaled_lr,
                                             warmup_epochs=args.warmup_epochs, verbose=0),
    hvd.callbacks.LearningRateScheduleCallback(initial_lr=scaled_lr, start_epoch=args.warmup_epochs,
                                               multiplier=lambda epoch: 0.97 ** epoch),
]
if hvd.rank() == 0:
    os.makedirs(args.ckpt_dir, exist_ok=True)
    callbacks.append(tf.keras.callbacks.ModelCheckpoint(
        os.path.join(args.ckpt_dir, "epoch-{epoch:03d}.h5"), save_weights_only=True))
    callbacks.append(tf.keras.callbacks.TensorBoard(os.path.join(args.ckpt_dir, "logs"),
                                                    update_freq="epoch"))

model.fit(train,
          steps_per_epoch=steps_per_epoch,
          epochs=args.epochs,
          initial_epoch=resume_epoch,
          callbacks=callbacks,
          verbose=1 if hvd.rank() == 0 else 0)

if hvd.rank() == 0:
    seed = "ROMEO:"
    ids = [char2idx[c] for c in seed]
    for _ in range(300):
        logits = model.predict(np.array([ids[-args.seq_len:]]), verbose=0)[0, -1]
        ids.append(int(tf.random.categorical(logits[None], 1)[0, 0]))
    print("".join(vocab[i] for i in ids))
