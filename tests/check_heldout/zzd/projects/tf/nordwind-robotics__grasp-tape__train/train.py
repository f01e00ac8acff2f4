"""Grasp-success classifier on 96x96 depth crops (custom training loop).

All knobs are GRASP_* environment variables (see grasp/config.py); the team keeps them in params.env:
    set -a; source params.env; set +a; horovodrun -np 4 python train.py
"""
import time

import tensorflow as tf
import horovod.tensorflow as hvd

from grasp import dist
from grasp.config import CFG
from grasp.data import load_npz, train_pipeline, eval_pipeline
from grasp.model import GraspNet
from grasp.track import CsvTracker


def main():
    dist.init()
    x_tr, y_tr, x_va, y_va = load_npz(CFG.data)
    local_batch = CFG.global_batch // hvd.size()
    train_ds = train_pipeline(x_tr, y_tr, local_batch, hvd.rank(), hvd.size(), CFG.seed)
    val_ds = eval_pipeline(x_va, y_va)
    steps_per_epoch = len(y_tr) // CFG.global_batch

    model = GraspNet()
    model(tf.zeros((1,) + x_tr.shape[1:]))          # create the weights
    opt = tf.keras.optimizers.Adam(CFG.lr)          # lr tuned for the global batch
    opt.build(model.trainable_variables)
    dist.sync_weights(model, opt)

    bce = tf.keras.losses.BinaryCrossentropy(from_logits=True)
    auc = tf.keras.metrics.AUC(from_logits=True)
    tracker = CsvTracker(CFG.out_dir) if hvd.rank() == 0 else None

    @tf.function
    def step(x, y):
        with tf.GradientTape() as tape:
            loss = bce(y, model(x, training=True))
        grads = tape.gradient(loss, model.trainable_variables)
        grads = dist.average_gradients(grads)
        opt.apply_gradients(zip(grads, model.trainable_variables))
        return loss

    it = iter(train_ds)
    gstep = 0
    for epoch in range(CFG.epochs):
        t0 = time.time()
        losses = []
        for _ in range(steps_per_epoch):
            x, y = next(it)
            losses.append(float(step(x, y)))
            gstep += 1
            if hvd.rank() == 0 and gstep % CFG.ckpt_every == 0:
                model.save_weights(f"{CFG.out_dir}/grasp_step{gstep}.weights.h5")

        auc.reset_state()
        for x, y in val_ds:                         # full validation set on every worker
            auc.update_state(y, model(x, training=False))
        if tracker:
            tracker.row(epoch=epoch, loss=sum(losses) / len(losses), val_auc=float(auc.result()),
                        secs=time.time() - t0)


if __name__ == "__main__":
    main()
