# forest cover type MLP -- horovod version of train.py (see README)
#   horovodrun -np 4 python train_hvd.py
import json
import os

import tensorflow as tf
import keras
import horovod.tensorflow as hvd

from mlp_hw.datasets import load_covtype, make_eval_ds, make_train_ds
from mlp_hw.nets import mlp
from mlp_hw.train_utils import accuracy, confusion, plot_history

CONFIG = {
    "data": "data/covtype.data",
    "epochs": 25,
    "batch_size": 512,
    "lr": 1e-3 * hvd.size(),      # linear scaling rule from the lecture
    "hidden": [512, 256, 128],
    "out_dir": "out/hvd",
}


def main(cfg=CONFIG):
    hvd.init()
    gpus = tf.config.list_physical_devices("GPU")
    if gpus:
        tf.config.set_visible_devices(gpus[hvd.local_rank()], "GPU")
        tf.config.experimental.set_memory_growth(gpus[hvd.local_rank()], True)

    (x_tr, y_tr), (x_val, y_val) = load_covtype(cfg["data"])
    train_ds = make_train_ds(x_tr, y_tr, cfg["batch_size"])
    val_ds = make_eval_ds(x_val, y_val)

    model = mlp(x_tr.shape[1], 7, tuple(cfg["hidden"]))
    opt = keras.optimizers.Adam(learning_rate=cfg["lr"])
    loss_fn = keras.losses.SparseCategoricalCrossentropy(from_logits=True)

    @tf.function
    def step(x, y, first_batch):
        with tf.GradientTape() as tape:
            loss = loss_fn(y, model(x, training=True))
        tape = hvd.DistributedGradientTape(tape)
        grads = tape.gradient(loss, model.trainable_variables)
        opt.apply_gradients(zip(grads, model.trainable_variables))
        if first_batch:
            hvd.broadcast_variables(model.variables, root_rank=0)
            hvd.broadcast_variables(opt.variables, root_rank=0)
        return loss

    hist = {"loss": [], "val_acc": []}
    first = True
    for epoch in range(cfg["epochs"]):
        losses = []
        for x, y in train_ds:
            losses.append(float(step(x, y, first)))
            first = False
        val_acc = accuracy(model, val_ds)
        hist["loss"].append(sum(losses) / len(losses))
        hist["val_acc"].append(val_acc)
        if hvd.rank() == 0:
            print(f"epoch {epoch + 1}/{cfg['epochs']}  loss={hist['loss'][-1]:.4f}  val_acc={val_acc:.4f}")
            os.makedirs(cfg["out_dir"], exist_ok=True)
            model.save_weights(os.path.join(cfg["out_dir"], "mlp.weights.h5"))

    if hvd.rank() == 0:
        plot_history(hist, os.path.join(cfg["out_dir"], "curves.png"))
        cm = confusion(model, val_ds, 7)
        print("per-class recall:", (cm.diagonal() / cm.sum(1).clip(min=1)).round(3).tolist())
        with open(os.path.join(cfg["out_dir"], "history.json"), "w") as f:
            json.dump(hist, f)


if __name__ == "__main__":
    main()
