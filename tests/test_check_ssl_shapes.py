"""`hvdkit check`, step 6, on a self-supervised loop with several models (blind set zza, read at b542c3f):
the broadcast after the first step sends `[v for m in online + target for v in m.variables]`, with
`online, target = (enc, proj), (t_enc, t_proj)` made in one assignment. Each model named in those tuples is
covered; a model left out of them is not. Written from scratch for this test; it fails with the rule taken
back."""
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
