"""Fine-tune MobileNetV2 on tf_flowers, Horovod + Keras, Mahti gpumedium.

Job script (jobs/mahti_2nodes.sh):
    #SBATCH --nodes=2 --ntasks-per-node=4 --gres=gpu:a100:4
    export EPOCHS=20 BATCH=64
    srun python train.py
"""
from flowers.env import JobConfig, select_gpu

select_gpu()  # before TensorFlow is imported

import tensorflow as tf  # noqa: E402
import horovod.tensorflow.keras as hvd  # noqa: E402

from flowers.callbacks import training_callbacks  # noqa: E402
from flowers.data import load_flowers  # noqa: E402
from flowers.model import build_classifier  # noqa: E402

hvd.init()
cfg = JobConfig.from_env()
if hvd.rank() == 0:
    print(cfg, flush=True)

train_ds, val_ds, n_train, n_val = load_flowers(cfg, hvd.rank(), hvd.size())

model = build_classifier(cfg)
opt = tf.keras.optimizers.Adam(learning_rate=cfg.lr * hvd.size())
model.compile(optimizer=hvd.DistributedOptimizer(opt),
              loss="sparse_categorical_crossentropy", metrics=["accuracy"])

history = model.fit(
    train_ds,
    epochs=cfg.epochs,
    steps_per_epoch=n_train // cfg.batch,
    validation_data=val_ds,
    validation_steps=n_val // (cfg.batch * hvd.size()),
    callbacks=training_callbacks(cfg),
    verbose=2 if hvd.rank() == 0 else 0,
)

if hvd.rank() == 0:
    best = max(history.history["val_accuracy"])
    print(f"best val accuracy {best:.4f} on {hvd.size()} GPUs", flush=True)
    with open(f"results_{cfg.job_id}.txt", "w") as f:
        f.write(f"{hvd.size()} {best:.4f}\n")
