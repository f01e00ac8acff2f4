"""Step 6: pretrained weights loaded into a part of the model (`model.get_layer("encoder").load_weights(path)`,
torch's `model.get_submodule("encoder").load_state_dict(...)`) on rank 0 alone after the broadcast: only rank
0's encoder starts from them (flagged). Loaded before the broadcast, the broadcast carries them to every
rank (ok).

Written from scratch for these tests: a Keras tape script fine-tuning a pretrained encoder."""
from hvdkit.check import OK, WRONG

from crash_scripts import Source, check

SCRIPT = Source('''
    """Land-cover segmentation.  horovodrun -np 4 python train.py --pretrained enc.weights.h5"""
    import argparse

    import numpy as np
    import tensorflow as tf
    import horovod.tensorflow as hvd

    p = argparse.ArgumentParser()
    p.add_argument("--pretrained", default="weights/encoder.weights.h5")
    args = p.parse_args()
    hvd.init()
    tf.config.threading.set_intra_op_parallelism_threads(1)
    x = np.random.default_rng(0).normal(size=(2048, 16)).astype("float32")[hvd.rank()::hvd.size()]
    y = (x[:, 0] > 0).astype("int64")
    encoder = tf.keras.Sequential([tf.keras.layers.Dense(32, activation="relu")], name="encoder")
    model = tf.keras.Sequential([encoder, tf.keras.layers.Dense(2)])
    model(x[:1])
    {first}
    if hvd.rank() == 0 and args.pretrained:
        model.get_layer("encoder").load_weights(args.pretrained)
    {after}
    opt = tf.keras.optimizers.Adam(1e-3 * hvd.size())
    loss_fn = tf.keras.losses.SparseCategoricalCrossentropy(from_logits=True)
    for i in range(0, len(x), 64):
        with tf.GradientTape() as tape:
            loss = loss_fn(y[i:i + 64], model(x[i:i + 64], training=True))
        tape = hvd.DistributedGradientTape(tape)
        grads = tape.gradient(loss, model.trainable_variables)
        opt.apply_gradients(zip(grads, model.trainable_variables))
        if i == 0:
            hvd.broadcast_variables(opt.variables, root_rank=0)
    avg = hvd.allreduce(loss)
    if hvd.rank() == 0:
        print("loss", float(avg))
        model.save_weights("seg.weights.h5")
''')

BROADCAST = "hvd.broadcast_variables(model.variables, root_rank=0)"


def step6(tmp_path, first, after):
    return check(tmp_path, SCRIPT.replace("{first}", first).replace("{after}", after))[1].get(6, OK)


def test_a_layer_loaded_on_rank0_after_the_broadcast_is_flagged(tmp_path):
    assert step6(tmp_path, BROADCAST, "") == WRONG


def test_a_layer_loaded_before_the_broadcast_is_carried_by_it(tmp_path):
    assert step6(tmp_path, "", BROADCAST) == OK
