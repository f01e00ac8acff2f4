"""`hvdkit check`, static pass: a project helper taking its models as `*modules` (issue 39, class 3:
definitions, not spelling). `def sync_after_first_step(*modules, optimizer=None)` called with
`(encoder, projector, optimizer=opt)` binds `modules` to the pair, so the variables the helper broadcasts are
the encoder's and the projector's. A twin handing only the projector leaves the trained encoder unsynced.
"""
from crash_scripts import Source, check_project

OPS = '''
    import horovod.tensorflow as hvd


    def sync_after_first_step(*modules, optimizer=None):
        variables = [v for m in modules for v in m.variables]
        if optimizer is not None:
            variables += list(optimizer.variables)
        hvd.broadcast_variables(variables, root_rank=0)


    def mean_over_ranks(total, count):
        import tensorflow as tf
        pair = hvd.allreduce(tf.constant([total, count], tf.float64), op=hvd.Sum, name="pair")
        return float(pair[0] / pair[1])
'''

LOOPS = Source('''
    import tensorflow as tf
    import horovod.tensorflow as hvd

    from .ops import mean_over_ranks, sync_after_first_step


    def pretrain(encoder, projector, optimizer, dataset, epochs, log):
        params = encoder.trainable_variables + projector.trainable_variables

        @tf.function
        def step(x, y):
            with tf.GradientTape() as tape:
                loss = tf.reduce_mean(tf.square(projector(encoder(x, training=True)) - y))
            tape = hvd.DistributedGradientTape(tape)
            optimizer.apply_gradients(zip(tape.gradient(loss, params), params))
            return loss

        first = True
        for epoch in range(epochs):
            total, n = 0.0, 0
            for x, y in dataset:
                loss = step(x, y)
                if first:
                    sync_after_first_step(encoder, projector, optimizer=optimizer)
                    first = False
                total, n = total + float(loss), n + 1
            log(f"epoch {epoch} loss {mean_over_ranks(total, n):.4f}")
''')

TRAIN = '''
    """Pretrain an encoder and a projector: horovodrun -np 2 python train.py"""
    import argparse

    import keras
    import numpy as np
    import tensorflow as tf
    import horovod.tensorflow as hvd

    from ssl_kit.loops import pretrain


    def main():
        parser = argparse.ArgumentParser()
        parser.add_argument("--epochs", type=int, default=3)
        parser.add_argument("--lr", type=float, default=1e-3)
        args = parser.parse_args()
        hvd.init()
        for gpu in tf.config.list_physical_devices("GPU"):
            tf.config.experimental.set_memory_growth(gpu, True)
        gpus = tf.config.list_physical_devices("GPU")
        if gpus:
            tf.config.set_visible_devices(gpus[hvd.local_rank()], "GPU")
        x = np.random.RandomState(0).rand(512, 16).astype("float32")
        y = np.random.RandomState(1).rand(512, 4).astype("float32")
        data = tf.data.Dataset.from_tensor_slices((x, y)).shard(hvd.size(), hvd.rank()).batch(32)
        encoder = keras.Sequential([keras.Input((16,)), keras.layers.Dense(8, activation="relu")])
        projector = keras.Sequential([keras.Input((8,)), keras.layers.Dense(4)])
        optimizer = keras.optimizers.Adam(args.lr * hvd.size())
        pretrain(encoder, projector, optimizer, data, args.epochs, print if hvd.rank() == 0 else lambda s: None)
        if hvd.rank() == 0:
            encoder.save_weights("encoder.weights.h5")


    if __name__ == "__main__":
        main()
'''


def project(loops):
    return {"train.py": TRAIN, "ssl_kit/__init__.py": "", "ssl_kit/ops.py": OPS, "ssl_kit/loops.py": loops}


def test_models_handed_to_a_star_parameter_are_the_ones_broadcast(tmp_path):
    crash, flagged, findings = check_project(tmp_path, project(LOOPS))
    assert crash is None and flagged == {}
    assert "broadcast_variables(variables" in findings[6].evidence


def test_a_trained_model_left_out_of_the_star_parameter_is_not_broadcast(tmp_path):
    loops = LOOPS.replace("sync_after_first_step(encoder, projector, optimizer=optimizer)",
                          "sync_after_first_step(projector, optimizer=optimizer)")
    crash, flagged, findings = check_project(tmp_path, project(loops))
    assert crash is None and flagged == {6: "wrong"}
    assert "`encoder`" in findings[6].evidence
