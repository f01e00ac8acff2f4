"""`hvdkit check`, step 6, on self-supervised code with several models (blind set zza, read at b542c3f).

- A BYOL-style loop broadcasts after the first step `[v for m in online + target for v in m.variables]`, with
  `online, target = (enc, proj), (t_enc, t_proj)` made in one assignment: each model named in those tuples is
  covered; a model left out of them is not.
- A pretext model and a linear probe, each fitted with callbacks from a helper that makes fresh ones at each
  call: each fit has its own broadcast callback; one list shared by both fits broadcasts only once.

Written from scratch for these tests; each fails with its rule taken back."""
import textwrap

from crash_scripts import Source, check

BYOL = Source(textwrap.dedent('''
    import numpy as np
    import tensorflow as tf
    import keras
    import horovod.tensorflow as hvd


    def mlp(name):
        return keras.Sequential([keras.Input((16,)), keras.layers.Dense(16, activation="relu")], name=name)


    hvd.init()
    gpus = tf.config.list_physical_devices("GPU")
    if gpus:
        tf.config.set_visible_devices(gpus[hvd.local_rank()], "GPU")
    x = np.random.default_rng(0).random((1024, 16)).astype("float32")[hvd.rank()::hvd.size()]
    enc, proj, pred = mlp("enc"), mlp("proj"), mlp("pred")
    t_enc, t_proj = mlp("t_enc"), mlp("t_proj")
    t_enc.set_weights(enc.get_weights())
    t_proj.set_weights(proj.get_weights())
    online_vars = enc.trainable_variables + proj.trainable_variables + pred.trainable_variables
    online_models, target_models = ONLINE, (t_enc, t_proj)
    opt = keras.optimizers.Adam(1e-3 * hvd.size())
    for step, i in enumerate(range(0, len(x), 64)):
        v1 = x[i:i + 64] + 0.1 * np.random.normal(size=(len(x[i:i + 64]), 16)).astype("float32")
        v2 = x[i:i + 64] + 0.1 * np.random.normal(size=(len(x[i:i + 64]), 16)).astype("float32")
        with tf.GradientTape() as tape:
            p1, p2 = pred(proj(enc(v1))), pred(proj(enc(v2)))
            z1, z2 = t_proj(t_enc(v1)), t_proj(t_enc(v2))
            loss = tf.reduce_mean(tf.square(p1 - tf.stop_gradient(z2)))
            loss += tf.reduce_mean(tf.square(p2 - tf.stop_gradient(z1)))
        tape = hvd.DistributedGradientTape(tape)
        grads = tape.gradient(loss, online_vars)
        opt.apply_gradients(zip(grads, online_vars))
        if step == 0:
            hvd.broadcast_variables([v for m in online_models + target_models for v in m.variables] +
                                    pred.variables, root_rank=0)
            hvd.broadcast_variables(opt.variables, root_rank=0)
        for om, tm in zip((enc, proj), (t_enc, t_proj)):
            for w, tw in zip(om.weights, tm.weights):
                tw.assign(0.99 * tw + 0.01 * w)
    loss = float(hvd.allreduce(loss, name="loss"))
    if hvd.rank() == 0:
        print("loss", loss)
        enc.save("enc.keras")
''').lstrip())


def test_models_named_in_the_tuples_a_comprehension_iterates_are_broadcast(tmp_path):
    assert check(tmp_path, BYOL.replace("ONLINE", "(enc, proj)"))[1] == {}
    assert check(tmp_path, BYOL.replace("ONLINE", "(proj,)"))[1] == {6: "wrong"}


TWO_FITS = Source(textwrap.dedent('''
    import numpy as np
    import tensorflow as tf
    import keras
    import horovod.tensorflow.keras as hvd


    def distributed_callbacks():
        """Fresh Horovod callbacks for one fit."""
        return [hvd.callbacks.BroadcastGlobalVariablesCallback(0), hvd.callbacks.MetricAverageCallback()]


    hvd.init()
    gpus = tf.config.list_physical_devices("GPU")
    if gpus:
        tf.config.set_visible_devices(gpus[hvd.local_rank()], "GPU")
    rng = np.random.default_rng(0)
    x = rng.random((2048, 16)).astype("float32")[hvd.rank()::hvd.size()]
    y = rng.integers(0, 4, 2048)[hvd.rank()::hvd.size()]
    pretext = keras.Sequential([keras.Input((16,)), keras.layers.Dense(16, activation="relu"), keras.layers.Dense(4)])
    pretext.compile(optimizer=hvd.DistributedOptimizer(keras.optimizers.Adam(1e-3 * hvd.size())),
                    loss=keras.losses.SparseCategoricalCrossentropy(from_logits=True))
    FIRST
    pretext.fit(x, y, epochs=2, batch_size=64, callbacks=CALLBACKS_1, verbose=2 if hvd.rank() == 0 else 0)
    probe = keras.Sequential([keras.Input((16,)), keras.layers.Dense(4)])
    probe.compile(optimizer=hvd.DistributedOptimizer(keras.optimizers.Adam(1e-3 * hvd.size())),
                  loss=keras.losses.SparseCategoricalCrossentropy(from_logits=True))
    probe.fit(x, y, epochs=2, batch_size=64, callbacks=CALLBACKS_2, verbose=2 if hvd.rank() == 0 else 0)
    if hvd.rank() == 0:
        probe.save("probe.keras")
''').lstrip())


def test_a_helper_that_makes_fresh_callbacks_for_each_fit(tmp_path):
    fresh = TWO_FITS.replace("FIRST", "pass").replace("CALLBACKS_1", "distributed_callbacks()").replace(
        "CALLBACKS_2", "distributed_callbacks()")
    assert check(tmp_path, fresh)[1] == {}
    shared = TWO_FITS.replace("FIRST", "cbs = distributed_callbacks()").replace("CALLBACKS_1", "cbs").replace(
        "CALLBACKS_2", "cbs")
    assert check(tmp_path, shared)[1] == {6: "wrong"}
