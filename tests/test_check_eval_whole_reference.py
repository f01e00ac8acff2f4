"""`hvdkit check`, static pass, step 8: rank 0 evaluates the trained model on a whole reference set, and the
metric it prints is the job's (the labels' convention: "rank 0's metrics are fine when every rank evaluates
the same full data"; issue 39, class 4: judge by what the code computes). Two shapes the pass did not see as
evaluations: a TF model run under no GradientTape in a function of its own (a PINN's relative L2 error on
the reference grid), and a score counted from decoded outputs through loops over (hypothesis, reference)
pairs and counters filled by index (a BLEU of greedy decodes). Each beside its twin where the reference set
is this rank's shard: then rank 0 prints its own part's score, never averaged.
"""
from crash_scripts import Source, check

PINN = Source('''
    """Fit u(t, x) to a reference solution: horovodrun -np 2 python pinn.py"""
    import argparse

    import numpy as np
    import tensorflow as tf
    import horovod.tensorflow as hvd

    parser = argparse.ArgumentParser()
    parser.add_argument("--steps", type=int, default=2000)
    parser.add_argument("--lr", type=float, default=1e-3)
    args = parser.parse_args()

    hvd.init()
    gpus = tf.config.list_physical_devices("GPU")
    if gpus:
        tf.config.set_visible_devices(gpus[hvd.local_rank()], "GPU")

    grid = np.random.default_rng(0).uniform(-1, 1, (4096, 2)).astype(np.float32)
    truth = np.sin(np.pi * grid[:, :1]) * np.exp(-grid[:, 1:])
    mine = np.arange(len(grid))[hvd.rank()::hvd.size()]
    X_REF, U_REF = grid, truth.astype(np.float32)
    X_OBS, U_OBS = tf.constant(grid[mine]), tf.constant(U_REF[mine])

    model = tf.keras.Sequential([tf.keras.Input((2,)), tf.keras.layers.Dense(32, activation="tanh"),
                                 tf.keras.layers.Dense(1)])
    optimizer = tf.keras.optimizers.Adam(args.lr * hvd.size())


    @tf.function
    def train_step(first):
        with tf.GradientTape() as tape:
            loss = tf.reduce_mean(tf.square(model(X_OBS) - U_OBS))
        tape = hvd.DistributedGradientTape(tape)
        grads = tape.gradient(loss, model.trainable_variables)
        optimizer.apply_gradients(zip(grads, model.trainable_variables))
        if first:
            hvd.broadcast_variables(model.variables, root_rank=0)
            hvd.broadcast_variables(optimizer.variables, root_rank=0)
        return loss


    @tf.function
    def relative_error():
        pred = model(X_REF)
        return tf.norm(pred - U_REF) / tf.norm(U_REF)


    for step in range(args.steps):
        loss = train_step(step == 0)
        if step % 500 == 0 and hvd.rank() == 0:
            print(f"step {step} loss {float(loss):.3e} rel-L2 {float(relative_error()):.3e}")
    if hvd.rank() == 0:
        model.save_weights("pinn.weights.h5")
''')

BLEU = Source('''
    """Train a tiny translator and score it by BLEU: horovodrun -np 2 python translate.py"""
    import math
    from collections import Counter

    import numpy as np
    import tensorflow as tf
    import horovod.tensorflow as hvd

    EPOCHS, LR, BATCH, MAX_LEN, VOCAB = 3, 1e-3, 32, 8, 50

    hvd.init()
    gpus = tf.config.list_physical_devices("GPU")
    if gpus:
        tf.config.set_visible_devices(gpus[hvd.local_rank()], "GPU")

    rng = np.random.RandomState(0)
    train_src, train_tgt = rng.randint(4, VOCAB, (1024, MAX_LEN)), rng.randint(4, VOCAB, (1024, MAX_LEN))
    dev_src, dev_tgt = rng.randint(4, VOCAB, (128, MAX_LEN)), rng.randint(4, VOCAB, (128, MAX_LEN))
    dev_src, dev_tgt = dev_src, dev_tgt

    emb = tf.keras.layers.Embedding(VOCAB, 16)
    model = tf.keras.Sequential([tf.keras.Input((None,), dtype="int32"), emb, tf.keras.layers.Dense(VOCAB)])
    optimizer = tf.keras.optimizers.Adam(LR * hvd.size())


    @tf.function
    def train_step(src, tgt, first):
        with tf.GradientTape() as tape:
            loss = tf.reduce_mean(tf.keras.losses.sparse_categorical_crossentropy(tgt, model(src), from_logits=True))
        tape = hvd.DistributedGradientTape(tape)
        grads = tape.gradient(loss, model.trainable_variables)
        optimizer.apply_gradients(zip(grads, model.trainable_variables))
        if first:
            hvd.broadcast_variables(model.variables, root_rank=0)
            hvd.broadcast_variables(optimizer.variables, root_rank=0)
        return loss


    def greedy_bleu(src, tgt):
        ys = np.full((len(src), 1), 2, "int32")
        for _ in range(MAX_LEN - 1):
            nxt = tf.argmax(model(ys)[:, -1], -1, output_type=tf.int32).numpy()[:, None]
            ys = np.concatenate([ys, nxt], 1)
        matches, totals = np.zeros(2), np.zeros(2)
        for hyp, ref in zip(ys[:, 1:].tolist(), tgt.tolist()):
            for n in (1, 2):
                h = Counter(tuple(hyp[i:i + n]) for i in range(len(hyp) - n + 1))
                r = Counter(tuple(ref[i:i + n]) for i in range(len(ref) - n + 1))
                matches[n - 1] += sum((h & r).values())
                totals[n - 1] += max(len(hyp) - n + 1, 0)
        if matches.min() == 0:
            return 0.0
        return 100 * math.exp(np.mean(np.log(matches / totals)))


    steps = len(train_src) // BATCH
    for epoch in range(EPOCHS):
        order = np.random.RandomState(epoch).permutation(len(train_src))[hvd.rank()::hvd.size()]
        for step in range(steps // hvd.size()):
            idx = order[step * BATCH:(step + 1) * BATCH]
            loss = train_step(train_src[idx], train_tgt[idx], epoch == 0 and step == 0)
        if hvd.rank() == 0:
            print(f"epoch {epoch}: loss {float(loss):.3f} dev BLEU {greedy_bleu(dev_src, dev_tgt):.2f}")
            model.save_weights(f"epoch{epoch}.weights.h5")
''')


def test_rank0_scoring_a_whole_reference_grid_outside_any_tape_is_the_jobs_metric(tmp_path):
    crash, flagged = check(tmp_path, PINN)
    assert crash is None and flagged == {}


def test_rank0_scoring_its_own_shard_of_the_grid_is_not_averaged(tmp_path):
    crash, flagged = check(tmp_path, PINN.replace("X_REF, U_REF = grid, truth.astype(np.float32)",
                                                  "X_REF, U_REF = grid[mine], truth.astype(np.float32)[mine]"))
    assert crash is None and flagged == {8: "missing"}


def test_rank0_bleu_over_the_whole_dev_set_counted_by_index_is_the_jobs_metric(tmp_path):
    crash, flagged = check(tmp_path, BLEU)
    assert crash is None and flagged == {}


def test_rank0_bleu_over_its_own_shard_of_the_dev_set_is_not_averaged(tmp_path):
    crash, flagged = check(tmp_path, BLEU.replace(
        "dev_src, dev_tgt = dev_src, dev_tgt",
        "dev_src, dev_tgt = dev_src[hvd.rank()::hvd.size()], dev_tgt[hvd.rank()::hvd.size()]"))
    assert crash is None and flagged == {8: "missing"}
