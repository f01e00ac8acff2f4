import os
import json
import argparse

import numpy as np
import keras

from unc.config import Config
from unc import hvd_utils
from unc.hvd_utils import hvd
from unc.data import SplitManager, load_dataset
from unc.model import build_cnn


def parse():
    ap = argparse.ArgumentParser()
    ap.add_argument("--cfg", default=None, help="json with overrides")
    ap.add_argument("--out", default="out")
    ap.add_argument("--warm-start", type=int, default=1, help="1: keep weights across rounds")
    return ap.parse_args()


def main():
    args = parse()
    cfg = Config.load(args.cfg)
    hvd_utils.init()
    (x, y), (xt, yt) = load_dataset(cfg)
    splits = SplitManager(len(x), cfg.n_initial, seed=cfg.seed)
    os.makedirs(args.out, exist_ok=True)

    model = build_cnn(x.shape[1:], cfg.n_classes)
    model.compile(optimizer=hvd_utils.make_optimizer(cfg.lr),
                  loss="sparse_categorical_crossentropy", metrics=["accuracy"])
    table = []
    for rnd in range(cfg.rounds):
        if rnd > 0:
            if not args.warm_start:
                model = build_cnn(x.shape[1:], cfg.n_classes)
            # fresh optimizer state for the new round
            model.compile(optimizer=hvd.DistributedOptimizer(keras.optimizers.Adam(cfg.lr)),
                          loss="sparse_categorical_crossentropy", metrics=["accuracy"])
        xs, ys = splits.labeled_shard(x, y)
        model.fit(xs, ys, batch_size=cfg.batch_size, epochs=cfg.epochs,
                  callbacks=hvd_utils.callbacks(args.out, rnd),
                  verbose=2 if hvd.rank() == 0 else 0)
        res = model.evaluate(xt, yt, batch_size=512, verbose=0, return_dict=True)
        res = {k: float(v) for k, v in res.items()}
        res.update(round=rnd, n_labeled=int(len(splits.labeled)))
        table.append(res)
        if hvd.rank() == 0:
            print(json.dumps(res))
            splits.dump(os.path.join(args.out, "split_r%02d.json" % rnd))

        # least-confidence acquisition over the whole pool (same weights on every worker)
        prob = model.predict(x[splits.pool], batch_size=1024, verbose=0)
        conf = prob.max(axis=1)
        splits.move(np.argsort(conf, kind="stable")[:cfg.query_size])

    if hvd.rank() == 0:
        with open(os.path.join(args.out, "table.json"), "w") as f:
            json.dump(table, f, indent=1)


if __name__ == "__main__":
    main()
