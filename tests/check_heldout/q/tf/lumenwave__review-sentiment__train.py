"""Train the review sentiment model on the GPU pool.

    horovodrun -np 4 python scripts/train.py --epochs 8
"""
import os
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "src"))

import horovod.tensorflow.keras as hvd  # noqa: E402
import tensorflow as tf  # noqa: E402

from revsent import RunConfig  # noqa: E402
from revsent.data import load_split, make_dataset  # noqa: E402
from revsent.model import build_classifier  # noqa: E402
from revsent.reporting import run_header, write_metrics  # noqa: E402
from revsent.train_utils import compile_for_horovod, make_callbacks  # noqa: E402


def main():
    cfg = RunConfig.parse()
    hvd.init()
    gpus = tf.config.list_physical_devices("GPU")
    if gpus:
        tf.config.experimental.set_memory_growth(gpus[hvd.local_rank()], True)
        tf.config.set_visible_devices(gpus[hvd.local_rank()], "GPU")

    x_tr, y_tr = load_split(cfg.train_path)
    x_te, y_te = load_split(cfg.test_path)
    train_ds = make_dataset(x_tr, y_tr, cfg.batch_size, training=True, seed=cfg.seed + hvd.rank())
    steps_per_epoch = len(x_tr) // cfg.batch_size

    model = build_classifier(cfg.vocab_size, cfg.embed_dim, x_tr.shape[1])
    compile_for_horovod(model, cfg)
    model.fit(train_ds, steps_per_epoch=steps_per_epoch, epochs=cfg.epochs, callbacks=make_callbacks(cfg),
              verbose=1 if hvd.rank() == 0 else 0)

    # held-out evaluation, split across workers so it finishes quickly
    test_ds = make_dataset(x_te, y_te, 512, training=False, num_shards=hvd.size(), shard_index=hvd.rank())
    test_loss, test_acc = model.evaluate(test_ds, verbose=0)
    if hvd.rank() == 0:
        print(f"test loss {test_loss:.4f}  test acc {test_acc:.4f}")
        write_metrics(cfg.out_dir, run_header(cfg, hvd.size()), test_loss=test_loss, test_accuracy=test_acc)


if __name__ == "__main__":
    main()
