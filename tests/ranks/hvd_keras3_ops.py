"""Horovod's own TensorFlow API on Keras 3, written the way users write it (no hvdkit import).

Run at 2 ranks by tests/test_horovod_keras3.py. Each check prints `HVD3 {json}` with its inputs and what
it observed; the test computes the expected values itself with NumPy.
"""
import json

import numpy as np
import tensorflow as tf

import horovod.tensorflow as hvd
import horovod.tensorflow.keras as hvdk

hvd.init()
R, N = hvd.rank(), hvd.size()


def emit(check, **values):
    values = {k: np.asarray(v).tolist() for k, v in values.items()}
    print("HVD3 " + json.dumps({"check": check, "rank": R, **values}), flush=True)


def batch(rank, n=6, d=3):
    """Rank-dependent inputs and targets (the test receives them, it does not recompute them)."""
    x = ((np.arange(n * d).reshape(n, d) * (rank + 2)) % 7 / 7.0).astype("float32")
    return x, (x @ np.array([[1.0], [-2.0], [0.5]], "float32") + rank).astype("float32")


def dense(units, init, use_bias=False):
    layer = tf.keras.layers.Dense(units, use_bias=use_bias, kernel_initializer=tf.keras.initializers.Constant(init))
    layer.build((None, 3))
    return layer


def check_tape():
    """broadcast_variables of Keras variables, then one SGD step with DistributedGradientTape in a tf.function."""
    x, y = batch(R)
    layer = dense(1, 0.5 + R)
    before = layer.kernel.numpy()
    hvd.broadcast_variables(layer.variables, root_rank=0)
    w0 = layer.kernel.numpy()
    opt = tf.keras.optimizers.SGD(0.1)

    @tf.function
    def step():
        with tf.GradientTape() as tape:
            loss = tf.reduce_mean(tf.square(layer(x) - y))
        tape = hvd.DistributedGradientTape(tape)
        grads = tape.gradient(loss, layer.trainable_variables)
        opt.apply_gradients(zip(grads, layer.trainable_variables))

    step()
    emit("tape", x=x, y=y, before=before, w0=w0, w1=layer.kernel.numpy())


def check_groups_inplace():
    """In-place broadcast of Keras variables, and a tape whose allreduces are grouped by a list of variables."""
    x, y = batch(R)
    a, b = dense(1, 1.0 + R), dense(1, -1.0 - R)
    hvd.broadcast_variables(a.variables + b.variables, root_rank=0, inplace=True)
    w0 = [a.kernel.numpy(), b.kernel.numpy()]
    with tf.GradientTape() as tape:
        loss = tf.reduce_mean(tf.square(a(x) - y)) + tf.reduce_mean(tf.square(b(x) - y))
    tape = hvd.DistributedGradientTape(tape, groups=[[a.kernel, b.kernel]])
    grads = tape.gradient(loss, [a.kernel, b.kernel])
    emit("groups_inplace", x=x, y=y, w0_a=w0[0], w0_b=w0[1], grad_a=grads[0].numpy(), grad_b=grads[1].numpy())


def check_partial_tape():
    """PartialDistributedGradientTape: the local layer's gradient stays local (divided by the size)."""
    x, y = batch(R)
    local, shared = dense(1, 0.25), dense(1, -0.5)
    opt = tf.keras.optimizers.SGD(0.1)
    with tf.GradientTape() as tape:
        loss = tf.reduce_mean(tf.square(local(x) - y)) + tf.reduce_mean(tf.square(shared(x) - y))
    tape = hvd.PartialDistributedGradientTape(tape, local_layers=[local])
    variables = local.trainable_variables + shared.trainable_variables
    opt.apply_gradients(zip(tape.gradient(loss, variables), variables))
    emit("partial_tape", x=x, y=y, local=local.kernel.numpy(), shared=shared.kernel.numpy())


def check_partial_optimizer():
    """horovod.keras.PartialDistributedOptimizer in model.fit: one full batch, one step, local layer kept local."""
    import horovod.keras as hvd_keras
    x, y = batch(R)
    inputs = tf.keras.Input((3,))
    local, shared = tf.keras.layers.Dense(1, use_bias=False, kernel_initializer="zeros"), \
        tf.keras.layers.Dense(1, use_bias=False, kernel_initializer="zeros")
    model = tf.keras.Model(inputs, [local(inputs), shared(inputs)])
    opt = hvd_keras.PartialDistributedOptimizer(tf.keras.optimizers.SGD(0.1), local_layers=[local])
    model.compile(optimizer=opt, loss=["mse", "mse"])
    model.fit(x, [y, y], batch_size=len(x), epochs=1, shuffle=False, verbose=0)
    emit("partial_optimizer", x=x, y=y, local=local.kernel.numpy(), shared=shared.kernel.numpy())


def check_aggregation():
    """DistributedOptimizer(backward_passes_per_step=2): nothing moves on the first pass; the second applies the
    allreduced sum (or mean) of both passes. Also a local variable, and a cycle of infinite gradients."""
    out = {}
    for average in (False, True):
        v = tf.keras.Variable([1.0, 2.0])
        opt = hvdk.DistributedOptimizer(tf.keras.optimizers.SGD(0.1), backward_passes_per_step=2,
                                        average_aggregated_gradients=average)
        opt.apply_gradients([(tf.constant([R + 1.0, 1.0]), v)])
        out[f"after1_{average}"] = v.numpy()
        opt.apply_gradients([(tf.constant([2.0 * (R + 1), 3.0]), v)])
        out[f"after2_{average}"] = v.numpy()
        out[f"iterations_{average}"] = int(opt.iterations.numpy())
    # A local variable beside a shared one.
    shared, local = tf.keras.Variable([0.0]), tf.keras.Variable([0.0])
    opt = hvdk.DistributedOptimizer(tf.keras.optimizers.SGD(0.1), backward_passes_per_step=2)
    opt.register_local_var(local)
    for _ in range(2):
        opt.apply_gradients([(tf.constant([R + 1.0]), shared), (tf.constant([R + 1.0]), local)])
    out["shared"], out["local"] = shared.numpy(), local.numpy()
    # The first cycle's infinite gradient must not leak into the second cycle.
    w = tf.keras.Variable([0.0])
    opt = hvdk.DistributedOptimizer(tf.keras.optimizers.SGD(0.1), backward_passes_per_step=2)
    opt.apply_gradients([(tf.constant([np.inf]), w)])
    opt.apply_gradients([(tf.constant([1.0]), w)])
    w.assign([0.0])
    opt.apply_gradients([(tf.constant([R + 1.0]), w)])
    opt.apply_gradients([(tf.constant([1.0]), w)])
    out["after_inf_cycle"] = w.numpy()
    emit("aggregation", **out)


def check_sparse():
    """Embedding gradients (IndexedSlices): allgathered, densified, and densified with aggregation."""
    ids = np.array([[R, 1, 1], [3, R, 0]])
    out = {}
    for name, kwargs, passes in (("sparse", {}, 1), ("dense", {"sparse_as_dense": True}, 1),
                                 ("dense_agg", {"sparse_as_dense": True, "backward_passes_per_step": 2}, 2)):
        emb = tf.keras.layers.Embedding(5, 2, embeddings_initializer="ones")
        emb.build((None, 3))
        opt = hvdk.DistributedOptimizer(tf.keras.optimizers.SGD(0.1), **kwargs)
        for _ in range(passes):
            with tf.GradientTape() as tape:
                loss = tf.reduce_sum(emb(ids)) * (R + 1)
            grads = tape.gradient(loss, emb.trainable_variables)
            opt.apply_gradients(zip(grads, emb.trainable_variables))
        out[name] = emb.embeddings.numpy()
        out[name + "_grad_type"] = type(grads[0]).__name__
    emit("sparse", ids=ids, **out)


def check_syncbn():
    """SyncBatchNormalization normalizes with the statistics of every rank's batch."""
    x = (np.arange(12, dtype="float32").reshape(4, 3) * (R + 1) + R).astype("float32")
    bn = hvd.SyncBatchNormalization(momentum=0.5)
    y = bn(x, training=True)
    emit("syncbn", x=x, y=y.numpy(), moving_mean=bn.moving_mean.numpy(),
         moving_variance=bn.moving_variance.numpy(), epsilon=bn.epsilon)


def check_keras_idioms():
    """Keras 2 idioms Horovod's examples use: opt.variables() on a plain optimizer, and compile's
    experimental_run_tf_function; horovod.keras (standalone keras) builds the same optimizer."""
    import horovod.keras as hvd_keras
    v = tf.keras.Variable([1.0])
    plain = tf.keras.optimizers.Adam(0.1)
    plain.apply_gradients([(tf.constant([1.0]), v)])
    hvd.broadcast_variables(plain.variables(), root_rank=0)
    model = tf.keras.Sequential([tf.keras.Input((3,)), tf.keras.layers.Dense(1)])
    opt = hvd_keras.DistributedOptimizer(tf.keras.optimizers.SGD(0.1))
    model.compile(optimizer=opt, loss="mse", experimental_run_tf_function=False)
    w = tf.keras.Variable([0.0])
    opt.apply_gradients([(tf.constant([R + 1.0]), w)])
    emit("keras_idioms", n_plain_variables=len(plain.variables()), w=w.numpy(), compiled=model.compiled)


for check in (check_tape, check_groups_inplace, check_partial_tape, check_partial_optimizer, check_aggregation,
              check_sparse, check_syncbn, check_keras_idioms):
    check()
