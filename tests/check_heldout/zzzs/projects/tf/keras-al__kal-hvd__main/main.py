"""Keras active learning loop, data parallel with horovod.

horovodrun -np 4 python main.py --data=data/feats.npz --strategy=margin --rounds=8
"""
import os
import json

import numpy as np
from absl import app

from kal import flags as kflags
from kal.strategy import setup_horovod, hvd
from kal import data, models, callbacks

FLAGS = kflags.FLAGS


def query(model, x_pool, k, strategy):
    # whole pool on every worker: same weights -> same picks, no communication needed
    p = model.predict(x_pool, batch_size=1024, verbose=0)
    if strategy == "entropy":
        s = -(p * np.log(p + 1e-12)).sum(1)
    elif strategy == "margin":
        ps = np.sort(p, axis=1)
        s = -(ps[:, -1] - ps[:, -2])
    else:
        s = np.random.RandomState(0).rand(len(p))
    return np.argsort(-s, kind="stable")[:k]


def main(_):
    setup_horovod()
    (x, y), (xt, yt) = data.load(FLAGS.data)
    n_cls = int(y.max()) + 1
    rng = np.random.RandomState(FLAGS.seed)
    order = rng.permutation(len(x))
    labeled, pool = order[:FLAGS.init_size], order[FLAGS.init_size:]
    os.makedirs(FLAGS.out, exist_ok=True)

    rows = []
    for rnd in range(FLAGS.rounds):
        model = models.build(x.shape[1], n_cls, FLAGS.hidden)
        opt = models.make_optimizer(FLAGS.lr * hvd.size())
        model.compile(optimizer=hvd.DistributedOptimizer(opt),
                      loss="sparse_categorical_crossentropy", metrics=["accuracy"])

        xs, ys = data.shard_labeled(x, y, labeled, seed=FLAGS.seed + rnd)
        cbs = callbacks.make(FLAGS.out, rnd)
        model.fit(xs, ys, batch_size=FLAGS.batch_size, epochs=FLAGS.epochs, callbacks=cbs,
                  verbose=2 if hvd.rank() == 0 else 0)
        loss, acc = model.evaluate(xt, yt, batch_size=1024, verbose=0)
        rows.append({"round": rnd, "labeled": int(len(labeled)), "test_loss": float(loss), "test_acc": float(acc)})
        if hvd.rank() == 0:
            print("round %d labeled %d acc %.4f" % (rnd, len(labeled), acc))
            np.savez(os.path.join(FLAGS.out, "split_%02d.npz" % rnd), labeled=labeled, pool=pool)

        picked = query(model, x[pool], FLAGS.query_size, FLAGS.strategy)
        labeled = np.concatenate([labeled, pool[picked]])
        pool = np.delete(pool, picked)

    if hvd.rank() == 0:
        with open(os.path.join(FLAGS.out, "rounds.json"), "w") as f:
            json.dump(rows, f, indent=1)


if __name__ == "__main__":
    app.run(main)
