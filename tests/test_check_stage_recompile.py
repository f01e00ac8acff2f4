"""A Keras curriculum compiles the model once per stage, the optimizer made from a config
(`keras.optimizers.get({"class_name": ..., "config": {"learning_rate": lr}})`). Stage 0 wraps it in Horovod's
DistributedOptimizer; `if stage == 0: ... else: ...` over the stages' loop counter runs both branches in one
job, so a later stage compiled with the plain optimizer steps with each rank's own gradients (issue 39,
class 3: an optimizer rebuilt for a second phase and left unwrapped). The else branch of a test on a loop's
counter is no "Horovod off" path. Its twin wraps every stage's optimizer: right.

The same shape in a tape loop: `if cfg.distributed: tape = hvd.DistributedGradientTape(tape)` with the
dataclass field False by default is wrong (a run with the defaults averages nothing), beside a metric helper
whose allreduce averages no gradient.

Written from scratch for these tests: a Keras project with the stage logic in its package, and a TF script."""
from crash_scripts import Source, check_project

STAGES = Source('''
    import keras
    import horovod.tensorflow.keras as hvd


    def compile_stage(model, stage, lr, name="adam"):
        if stage == 0:
            opt = hvd.DistributedOptimizer(keras.optimizers.get({"class_name": name,
                                                                 "config": {"learning_rate": lr}}))
        else:
            opt = #LATER#
        model.compile(optimizer=opt, loss=keras.losses.SparseCategoricalCrossentropy(from_logits=True),
                      metrics=["accuracy"])


    def stage_callbacks():
        return [hvd.callbacks.BroadcastGlobalVariablesCallback(0), hvd.callbacks.MetricAverageCallback()]
''')

TRAIN = '''
    """Easy-first curriculum: horovodrun -np 2 python train.py"""
    import numpy as np
    import tensorflow as tf
    import keras
    import horovod.tensorflow.keras as hvd

    from curric.stages import compile_stage, stage_callbacks


    def main():
        hvd.init()
        gpus = tf.config.list_physical_devices("GPU")
        if gpus:
            tf.config.set_visible_devices(gpus[hvd.local_rank()], "GPU")
        blob = np.load("data/curriculum.npz")
        x, y = blob["x"].astype("float32"), blob["y"]
        order = np.argsort(blob["difficulty"])
        model = keras.Sequential([keras.Input((x.shape[1],)), keras.layers.Dense(32, activation="relu"),
                                  keras.layers.Dense(10)])
        lr = 1e-3 * hvd.size()
        for stage, frac in enumerate((0.3, 0.6, 1.0)):
            idx = order[:int(frac * len(order))]
            train = tf.data.Dataset.from_tensor_slices((x[idx], y[idx])).shard(hvd.size(), hvd.rank()).batch(32)
            compile_stage(model, stage, lr * 0.5 ** stage)
            model.fit(train, epochs=2, callbacks=stage_callbacks(), verbose=1 if hvd.rank() == 0 else 0)
        if hvd.rank() == 0:
            model.save("curriculum.keras")


    if __name__ == "__main__":
        main()
'''

PLAIN = 'keras.optimizers.get({"class_name": name, "config": {"learning_rate": lr}})'


def project(later):
    return {"train.py": TRAIN, "curric/__init__.py": "", "curric/stages.py": STAGES.replace("#LATER#", later)}


def test_a_later_stage_compiled_with_a_plain_optimizer_is_wrong(tmp_path):
    crash, flagged, findings = check_project(tmp_path, project(PLAIN))
    assert crash is None and flagged == {5: "wrong"}
    assert "keras.optimizers.get" in findings[5].evidence


def test_every_stage_compiled_with_a_wrapped_optimizer_is_right(tmp_path):
    crash, flagged, _ = check_project(tmp_path, project(f"hvd.DistributedOptimizer({PLAIN})"))
    assert crash is None and flagged == {}


TAPE_TRAIN = Source('''
    """WaveNet-ish regression: horovodrun -np 2 python train.py"""
    from dataclasses import dataclass

    import numpy as np
    import tensorflow as tf
    import horovod.tensorflow as hvd


    @dataclass
    class Config:
        steps: int = 1000
        lr: float = 1e-3
        eval_batches: int = 4
        distributed: bool = False


    def averaged(value, name):
        return float(hvd.allreduce(tf.constant(value, tf.float32), op=hvd.Average, name=name))


    def make_train_step(model, optimizer, cfg):
        @tf.function
        def train_step(x, y, first):
            with tf.GradientTape() as tape:
                loss = tf.reduce_mean(tf.square(model(x, training=True) - y))
            #WRAP
            grads = tape.gradient(loss, model.trainable_variables)
            grads, _ = tf.clip_by_global_norm(grads, 10.0)
            optimizer.apply_gradients(zip(grads, model.trainable_variables))
            if first:
                hvd.broadcast_variables(model.variables, root_rank=0)
                hvd.broadcast_variables(optimizer.variables, root_rank=0)
            return loss
        return train_step


    def main():
        cfg = Config()
        hvd.init()
        gpus = tf.config.list_physical_devices("GPU")
        if gpus:
            tf.config.set_visible_devices(gpus[hvd.local_rank()], "GPU")
        blob = np.load("data/waves.npz")
        x, y = blob["x"].astype("float32"), blob["y"].astype("float32")
        train = iter(tf.data.Dataset.from_tensor_slices((x, y)).shard(hvd.size(), hvd.rank()).repeat().batch(32))
        model = tf.keras.Sequential([tf.keras.Input((x.shape[1],)), tf.keras.layers.Dense(1)])
        optimizer = tf.keras.optimizers.Adam(cfg.lr * hvd.size())
        train_step = make_train_step(model, optimizer, cfg)
        for step in range(cfg.steps):
            loss = train_step(*next(train), step == 0)
            if (step + 1) % 100 == 0:
                mean = averaged(sum(float(loss) for _ in range(cfg.eval_batches)) / cfg.eval_batches, "loss")
                if hvd.rank() == 0:
                    print(step, mean)
                    model.save_weights("wave.weights.h5")


    if __name__ == "__main__":
        main()
''')


def test_a_tape_wrapped_only_under_an_option_off_by_default_is_wrong(tmp_path):
    """The metric helper's allreduce is no average of gradients: the `_` a comprehension binds beside it is not,
    by spelling, the `_` of `grads, _ = tf.clip_by_global_norm(...)`."""
    crash, flagged, findings = check_project(tmp_path, {"train.py": TAPE_TRAIN.replace(
        "#WRAP", "if cfg.distributed:\n                tape = hvd.DistributedGradientTape(tape)")})
    assert crash is None and flagged == {5: "wrong"} and "cfg.distributed" in findings[5].evidence


def test_the_same_tape_wrapped_on_every_run_is_right(tmp_path):
    crash, flagged, _ = check_project(tmp_path, {"train.py": TAPE_TRAIN.replace(
        "#WRAP", "tape = hvd.DistributedGradientTape(tape)")})
    assert crash is None and flagged == {}
