import datetime
import os

import keras
import tensorflow as tf
import horovod.tensorflow as hvd

from exp import config
from exp.csvlog import CsvLog
from exp.data import get_split
from exp.steps import build_train_step, eval_step


def build_model(cfg):
    base = keras.applications.MobileNetV3Small(input_shape=(cfg.image_size, cfg.image_size, 3),
                                               include_top=False, weights=None, pooling="avg")
    out = keras.layers.Dense(cfg.num_classes)(keras.layers.Dropout(0.2)(base.output))
    return keras.Model(base.input, out)


def main():
    cfg = config.parse()
    hvd.init()
    gpus = tf.config.list_physical_devices("GPU")
    if gpus:
        tf.config.experimental.set_memory_growth(gpus[hvd.local_rank()], True)
        tf.config.set_visible_devices(gpus[hvd.local_rank()], "GPU")

    run = datetime.datetime.now().strftime("%Y-%m-%dT%H-%M")
    out_dir = os.path.join(cfg.out, run)
    log = CsvLog(out_dir, enabled=hvd.rank() == 0)

    train_ds = get_split(cfg, "train", hvd.size(), hvd.rank())
    val_ds = get_split(cfg, "val", hvd.size(), hvd.rank())
    model = build_model(cfg)
    sched = keras.optimizers.schedules.CosineDecayRestarts(cfg.lr * hvd.size(), cfg.restart_steps, t_mul=1.5)
    optimizer = keras.optimizers.Adam(learning_rate=sched)
    train_step = build_train_step(model, optimizer, cfg)

    best = 0.0
    for epoch in range(cfg.epochs):
        losses = []
        for i, (x, y) in enumerate(train_ds):
            losses.append(float(train_step(x, y)))
            if epoch == 0 and i == 0:
                hvd.broadcast_variables(model.variables, root_rank=0)
                hvd.broadcast_variables(optimizer.variables, root_rank=0)
        hits, total = 0.0, 0.0
        for x, y in val_ds:
            h, n = eval_step(model, x, y)
            hits, total = hits + float(h), total + float(n)
        hits = hvd.allreduce(tf.constant(hits), op=hvd.Sum, name="hits")
        total = hvd.allreduce(tf.constant(total), op=hvd.Sum, name="total")
        acc = float(hits / total)
        if hvd.rank() == 0:
            log.write(epoch=epoch, loss=sum(losses) / len(losses), val_acc=acc)
            if acc > best:
                best = acc
                model.save(os.path.join(out_dir, "best.keras"))
            print(f"epoch {epoch}: val_acc={acc:.4f} (best {best:.4f})")


if __name__ == "__main__":
    main()
