"""Meta-learning in TF: each rank draws its own tasks at every meta-step from a generator seeded with the rank
(`rng = np.random.default_rng(base + hvd.rank())`, `idx = rng.choice(...)`, `x[idx]`), adapts a fast copy of
the meta-model (its variables assigned from the broadcast meta-model's before each adaptation) and applies
the averaged query gradients to the meta-model. Judged by what each step achieves (issue 39, class 4):

- step 3: tasks sampled i.i.d. per rank read no data set in order, so there is nothing to partition; drawn
  from a generator seeded alike on every rank, every rank trains on the same tasks (flagged);
- step 6: the fast model starts from the broadcast meta-model's weights; without that copy it trains from
  its own random start on each rank (flagged).
"""
from crash_scripts import Source, check

FOMAML = Source('''
    """First-order MAML: horovodrun -np 2 python meta_train.py"""
    import argparse

    import keras
    import numpy as np
    import tensorflow as tf
    import horovod.tensorflow as hvd


    def sample_task(x, y, rng, n_way, k_shot, n_query):
        classes = rng.choice(np.unique(y), n_way, replace=False)
        support, query = [], []
        for c in classes:
            idx = rng.choice(np.flatnonzero(y == c), k_shot + n_query, replace=False)
            support.append(idx[:k_shot])
            query.append(idx[k_shot:])
        s, q = np.concatenate(support), np.concatenate(query)
        return (x[s], np.repeat(np.arange(n_way), k_shot)), (x[q], np.repeat(np.arange(n_way), n_query))


    def net(n_way):
        return keras.Sequential([keras.Input((16,)), keras.layers.Dense(32, activation="relu"),
                                 keras.layers.Dense(n_way)])


    def adapt(meta, fast, support, lr, steps):
        #COPY
        xs, ys = support
        for _ in range(steps):
            with tf.GradientTape() as tape:
                loss = tf.reduce_mean(keras.losses.sparse_categorical_crossentropy(ys, fast(xs), from_logits=True))
            for v, g in zip(fast.trainable_variables, tape.gradient(loss, fast.trainable_variables)):
                v.assign_sub(lr * g)


    def main():
        parser = argparse.ArgumentParser()
        parser.add_argument("--iterations", type=int, default=200)
        parser.add_argument("--meta-lr", type=float, default=1e-3)
        parser.add_argument("--seed", type=int, default=17)
        parser.add_argument("--data", default="data/tasks.npz")
        args = parser.parse_args()
        hvd.init()
        gpus = tf.config.list_physical_devices("GPU")
        if gpus:
            tf.config.set_visible_devices(gpus[hvd.local_rank()], "GPU")
        blob = np.load(args.data)
        x, y = blob["x"].astype("float32"), blob["y"]
        rng = np.random.default_rng(#SEED#)

        meta, fast = net(5), net(5)
        meta_opt = keras.optimizers.Adam(args.meta_lr * hvd.size())
        hvd.broadcast_variables(meta.variables, root_rank=0)
        for it in range(args.iterations):
            support, (xq, yq) = sample_task(x, y, rng, 5, 1, 5)
            adapt(meta, fast, support, 0.05, 3)
            with tf.GradientTape() as tape:
                loss = tf.reduce_mean(keras.losses.sparse_categorical_crossentropy(yq, fast(xq), from_logits=True))
            tape = hvd.DistributedGradientTape(tape)
            grads = tape.gradient(loss, fast.trainable_variables)
            meta_opt.apply_gradients(zip(grads, meta.trainable_variables))
            mean = hvd.allreduce(loss, name="query_loss")
            if hvd.rank() == 0 and it % 50 == 0:
                print(it, float(mean))
                meta.save_weights("meta.weights.h5")


    if __name__ == "__main__":
        main()
''')

COPY = "for fv, mv in zip(fast.variables, meta.variables):\n            fv.assign(mv)"


def test_tasks_drawn_per_rank_and_a_fast_copy_of_the_broadcast_model_are_right(tmp_path):
    crash, flagged = check(tmp_path, FOMAML.replace("#COPY", COPY).replace("#SEED#", "args.seed + hvd.rank()"))
    assert crash is None and flagged == {}


def test_tasks_drawn_alike_on_every_rank_are_the_same_data(tmp_path):
    crash, flagged = check(tmp_path, FOMAML.replace("#COPY", COPY).replace("#SEED#", "args.seed"))
    assert crash is None and flagged == {3: "missing"}


def test_a_fast_model_never_copied_from_the_broadcast_one_starts_apart(tmp_path):
    crash, flagged = check(tmp_path, FOMAML.replace("#COPY", "pass").replace("#SEED#", "args.seed + hvd.rank()"))
    assert crash is None and flagged == {6: "wrong"}
