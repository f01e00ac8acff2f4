"""Step 8 follows a reported value through the list it was appended to: `history.append(float(val.result()))`
in the epoch loop, then rank 0 prints `history[-1]`. When every rank evaluates the whole held-out table, that
is the job's metric (ok); when each rank evaluates its own shard of it, rank 0's alone (flagged). The loop
updates a Keras metric and calls the model without `training=False`: the update_state() call makes it an
evaluation.

Written from scratch for these tests: a TF 2 surrogate-model trainer whose worker function a launcher module
runs, the shape of aerodynamics codes on clusters."""
import textwrap

from hvdkit.check import FLAGGED, OK
from hvdkit.check.static import analyze

TRAINER = '''
    import time

    import numpy as np
    import tensorflow as tf
    import horovod.tensorflow as hvd


    def tables(batch, held_out=400):
        rng = np.random.default_rng(11)
        x = rng.normal(size=(4000, 14)).astype("float32")
        y = np.tanh(x[:, :3]).astype("float32")
        fit_part = tf.data.Dataset.from_tensor_slices((x[held_out:], y[held_out:]))
        fit_part = fit_part.shard(hvd.size(), hvd.rank()).shuffle(4096).batch(batch)
        check_part = tf.data.Dataset.from_tensor_slices((x[:held_out], y[:held_out]))
        {check_line}
        return fit_part, check_part.batch(256)


    def worker(cfg):
        hvd.init()
        fit_part, check_part = tables(cfg["batch"])
        model = tf.keras.Sequential([tf.keras.layers.Dense(64, activation="tanh"), tf.keras.layers.Dense(3)])
        opt = tf.keras.optimizers.Adam(cfg["lr"] * hvd.size())

        @tf.function
        def step(xb, yb):
            with tf.GradientTape() as tape:
                loss = tf.reduce_mean(tf.square(model(xb, training=True) - yb))
            tape = hvd.DistributedGradientTape(tape)
            opt.apply_gradients(zip(tape.gradient(loss, model.trainable_variables), model.trainable_variables))
            return loss

        history = []
        for epoch in range(cfg["epochs"]):
            t0 = time.time()
            for b, (xb, yb) in enumerate(fit_part):
                step(xb, yb)
                if epoch == 0 and b == 0:
                    hvd.broadcast_variables(model.variables, root_rank=0)
                    hvd.broadcast_variables(opt.variables, root_rank=0)
            mae = tf.keras.metrics.Mean()
            for xb, yb in check_part:
                mae.update_state(tf.reduce_mean(tf.abs(model(xb) - yb)))
            history.append(float(mae.result()))
            if hvd.rank() == 0:
                print(f"epoch {epoch}: mae {history[-1]:.5f} [{time.time() - t0:.1f}s]", flush=True)
                model.save_weights("surrogate.weights.h5")
        return history
'''

LAUNCH = '''
    """Surrogate training.  python launch.py --np 4"""
    import argparse

    import horovod

    from surro import trainer

    p = argparse.ArgumentParser()
    p.add_argument("--np", type=int, default=2)
    args = p.parse_args()
    out = horovod.run(trainer.worker, args=({"batch": 64, "lr": 1e-3, "epochs": 20},), np=args.np)
    print("final mae (rank 0):", out[0][-1])
'''


def step8(tmp_path, check_line):
    (tmp_path / "surro").mkdir()
    (tmp_path / "surro" / "__init__.py").write_text("")
    (tmp_path / "surro" / "trainer.py").write_text(textwrap.dedent(TRAINER.replace("{check_line}", check_line)))
    (tmp_path / "launch.py").write_text(textwrap.dedent(LAUNCH).lstrip("\n"))
    findings, _, _ = analyze(str(tmp_path / "launch.py"), root=str(tmp_path))
    return findings[8]


def test_the_whole_held_out_table_on_every_rank_is_the_jobs_metric(tmp_path):
    f = step8(tmp_path, "pass")
    assert f.verdict == OK and "whole" in f.evidence, f


def test_a_shard_of_the_held_out_table_reported_by_rank_0_is_flagged(tmp_path):
    f = step8(tmp_path, "check_part = check_part.shard(hvd.size(), hvd.rank())")
    assert f.verdict in FLAGGED, f
