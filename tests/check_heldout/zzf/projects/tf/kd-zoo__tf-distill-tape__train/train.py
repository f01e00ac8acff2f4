import argparse
import logging
import os

import tensorflow as tf
import keras
import horovod.tensorflow as hvd

from common.config import TrainConfig
from common.data import load
from common.models import mlp_teacher, tiny_student
from common.steps import make_eval_step, make_train_step

logging.basicConfig(level=logging.INFO, format="%(asctime)s %(levelname)s %(message)s")
log = logging.getLogger("kd")


def main(cfg: TrainConfig):
    hvd.init()
    for gpu in tf.config.list_physical_devices("GPU"):
        tf.config.experimental.set_memory_growth(gpu, True)
    if hvd.rank() != 0:
        log.setLevel(logging.WARNING)
    log.info("config:\n%s", cfg.dump())

    train_ds, test_ds = load(cfg.dataset, cfg.batch_size)

    teacher = mlp_teacher()
    teacher.load_weights(cfg.teacher_weights)
    teacher.trainable = False
    student = tiny_student()

    opt = keras.optimizers.Adam(learning_rate=cfg.base_lr * hvd.size())
    train_step = make_train_step(student, teacher, opt, cfg.temperature, cfg.alpha)
    eval_step = make_eval_step(student)

    ckpt = tf.train.Checkpoint(student=student, optimizer=opt)
    manager = tf.train.CheckpointManager(ckpt, cfg.ckpt_dir, max_to_keep=2)

    first = True
    for epoch in range(cfg.epochs):
        for x, y in train_ds:
            loss = train_step(x, y, first)
            first = False
        hits = total = 0.0
        for x, y in test_ds:
            h, n = eval_step(x, y)
            hits += h
            total += n
        hits = hvd.allreduce(hits, op=hvd.Sum, name="hits")
        total = hvd.allreduce(total, op=hvd.Sum, name="total")
        log.info("epoch %d loss %.4f test acc %.4f", epoch, float(loss), float(hits / total))
        if hvd.rank() == 0:
            manager.save()

    if hvd.rank() == 0:
        student.save(os.path.join(cfg.ckpt_dir, "student.keras"))


if __name__ == "__main__":
    ap = argparse.ArgumentParser()
    ap.add_argument("--config", help="JSON file with TrainConfig fields")
    a = ap.parse_args()
    main(TrainConfig.from_json(a.config) if a.config else TrainConfig())
