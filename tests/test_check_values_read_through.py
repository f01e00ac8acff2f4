"""Values judged by what they compute (issue 39, class 4), and crashes on the second step (class 5).

- `np.random.randint(0, 10, size=n)` makes up labels between constant bounds: no split of a data set (a
  synthetic fallback behind an off-by-default flag was read as each rank drawing its own subset).
- A DistributedSampler given `rank=hvd.local_rank()` is judged by its rank argument, not by a data set whose
  statistics rank 0 computed and broadcast (which mention the rank).
- Gradient accumulation in a TensorFlow loop: plain-tape gradients added into accumulators
  (`a.assign_add(g)`) and applied from them are this rank's own, whatever another step function does.
- A warm-up that ramps from `target / size` to `target` (reading `target` twice) ends at the scaled LR; a
  project's schedule class handed a rank-dependent step count (`PolyLR(lr * size, total_iters, power)`) does
  not make the LR depend on the rank.
- `FLAGS.x` with no `flags.DEFINE_*("x", ...)` raises (absl); an option read in the `else` of `if step == 0`
  raises on the second step.

Written from scratch for these tests."""
from crash_scripts import Source, check, check_project

ABSL_TAPE = Source('''
    """MNIST, absl flags: horovodrun -np 2 python train.py"""
    from absl import app, flags
    import numpy as np
    import tensorflow as tf
    import horovod.tensorflow as hvd

    flags.DEFINE_integer("batch_size", 64, "per rank")
    flags.DEFINE_float("lr", 1e-3, "one worker's")
    flags.DEFINE_integer("warmup_steps", 100, "")
    flags.DEFINE_boolean("real_data", True, "False: random data")
    FLAGS = flags.FLAGS


    def load():
        if FLAGS.real_data:
            (x, y), _ = tf.keras.datasets.mnist.load_data()
        else:
            x = np.random.randint(0, 255, size=(6000, 28, 28)).astype(np.uint8)
            y = np.random.randint(0, 10, size=(6000,))
        return (x[..., None] / 255.0).astype("float32"), y.astype("int64")


    def main(_):
        hvd.init()
        gpus = tf.config.list_physical_devices("GPU")
        if gpus:
            tf.config.set_visible_devices(gpus[hvd.local_rank()], "GPU")
        x, y = load()
        ds = tf.data.Dataset.from_tensor_slices((x, y)).shard(hvd.size(), hvd.rank()).batch(FLAGS.batch_size)
        model = tf.keras.Sequential([tf.keras.layers.Flatten(), tf.keras.layers.Dense(10)])
        warmup = FLAGS.#WARMUP#
        opt = tf.keras.optimizers.Adam(FLAGS.lr * hvd.size())
        loss_fn = tf.keras.losses.SparseCategoricalCrossentropy(from_logits=True)
        for step, (bx, by) in enumerate(ds):
            with tf.GradientTape() as tape:
                loss = loss_fn(by, model(bx, training=True))
            tape = hvd.DistributedGradientTape(tape)
            grads = tape.gradient(loss, model.trainable_variables)
            opt.learning_rate.assign(FLAGS.lr * hvd.size() * min(1.0, (step + 1) / warmup))
            opt.apply_gradients(zip(grads, model.trainable_variables))
            if step == 0:
                hvd.broadcast_variables(model.variables, root_rank=0)
                hvd.broadcast_variables(opt.variables, root_rank=0)
            if step % 100 == 0:
                avg = hvd.allreduce(loss, op=hvd.Average)
                if hvd.rank() == 0:
                    print(step, float(avg))
        if hvd.rank() == 0:
            model.save("mnist.keras")


    if __name__ == "__main__":
        app.run(main)
''')


def test_made_up_labels_are_no_split_and_a_defined_flag_does_not_crash(tmp_path):
    crash, flagged = check(tmp_path, ABSL_TAPE.replace("#WARMUP#", "warmup_steps"))
    assert crash is None and flagged == {}


def test_a_flag_no_define_declares_crashes(tmp_path):
    crash, _ = check(tmp_path, ABSL_TAPE.replace("#WARMUP#", "warmup_epochs"))
    assert crash is not None and crash["error"] == "AttributeError: warmup_epochs"


SECOND_STEP = Source('''
    """Score model with an EMA copy: horovodrun -np 2 python train.py"""
    import argparse

    import tensorflow as tf
    import horovod.tensorflow as hvd

    p = argparse.ArgumentParser()
    p.add_argument("--lr", type=float, default=2e-4)
    p.add_argument("--ema-rate", type=float, default=0.999)
    p.add_argument("--steps", type=int, default=10000)
    args = p.parse_args()

    hvd.init()
    gpus = tf.config.list_physical_devices("GPU")
    if gpus:
        tf.config.set_visible_devices(gpus[hvd.local_rank()], "GPU")
    x = tf.random.normal([4096, 32], seed=0)
    ds = tf.data.Dataset.from_tensor_slices(x).shard(hvd.size(), hvd.rank()).batch(64).repeat()
    model = tf.keras.Sequential([tf.keras.layers.Dense(64, activation="relu"), tf.keras.layers.Dense(32)])
    ema = tf.keras.models.clone_model(model)
    opt = tf.keras.optimizers.Adam(args.lr * hvd.size())
    for step, batch in enumerate(ds.take(args.steps)):
        with tf.GradientTape() as tape:
            loss = tf.reduce_mean(tf.square(model(batch + tf.random.normal(tf.shape(batch))) - batch))
        tape = hvd.DistributedGradientTape(tape)
        grads = tape.gradient(loss, model.trainable_variables)
        opt.apply_gradients(zip(grads, model.trainable_variables))
        if step == 0:
            hvd.broadcast_variables(model.variables, root_rank=0)
            hvd.broadcast_variables(opt.variables, root_rank=0)
            ema.set_weights(model.get_weights())
        else:
            for e, w in zip(ema.trainable_weights, model.trainable_weights):
                e.assign(args.#RATE# * e + (1.0 - args.#RATE#) * w)
        if step % 500 == 0:
            avg = hvd.allreduce(loss, op=hvd.Average)
            if hvd.rank() == 0:
                print(step, float(avg))
                ema.save("ema.keras")
''')


def test_an_undeclared_option_read_from_the_second_step_crashes(tmp_path):
    crash, _ = check(tmp_path, str.replace(SECOND_STEP, "#RATE#", "ema_decay"))
    assert crash is not None and "ema_decay" in crash["error"]


def test_the_declared_option_read_from_the_second_step_does_not(tmp_path):
    crash, flagged = check(tmp_path, str.replace(SECOND_STEP, "#RATE#", "ema_rate"))
    assert crash is None and flagged == {}


DATA = Source('''
    import horovod.torch as hvd
    import numpy as np
    import torch
    from torch.utils.data import DataLoader, Dataset
    from torch.utils.data.distributed import DistributedSampler


    class Fields(Dataset):
        def __init__(self, n, stats):
            self.x = np.random.default_rng(0).normal(size=(n, 8)).astype("float32")
            self.mean, self.std = stats

        def __len__(self):
            return len(self.x)

        def __getitem__(self, i):
            x = (self.x[i] - self.mean) / self.std
            return torch.from_numpy(x), torch.from_numpy(x[:1])


    def make_loader(ds, batch_size, train=True):
        sampler = DistributedSampler(ds, num_replicas=hvd.size(), rank=#RANK#, shuffle=train)
        return DataLoader(ds, batch_size=batch_size, sampler=sampler), sampler
''')

DATA_TRAIN = '''
    """Field regression on a cluster: mpirun -np 8 --map-by ppr:4:node python train.py"""
    import horovod.torch as hvd
    import numpy as np
    import torch

    from fields.data import Fields, make_loader

    hvd.init()
    torch.set_num_threads(1)
    stats = (np.zeros(8, "float32"), np.ones(8, "float32")) if hvd.rank() == 0 else None
    stats = hvd.broadcast_object(stats, root_rank=0)
    train_loader, train_sampler = make_loader(Fields(4096, stats), 32)
    model = torch.nn.Linear(8, 1)
    opt = torch.optim.SGD(model.parameters(), lr=0.01 * hvd.size())
    opt = hvd.DistributedOptimizer(opt, named_parameters=model.named_parameters())
    hvd.broadcast_parameters(model.state_dict(), root_rank=0)
    for epoch in range(5):
        train_sampler.set_epoch(epoch)
        for x, y in train_loader:
            opt.zero_grad()
            loss = torch.nn.functional.mse_loss(model(x), y)
            loss.backward()
            opt.step()
        avg = hvd.allreduce(loss.detach(), name="loss")
        if hvd.rank() == 0:
            print(epoch, avg.item())
            torch.save(model.state_dict(), "fields.pt")
'''


def test_a_sampler_given_the_local_rank_is_wrong_whatever_its_data_set_mentions(tmp_path):
    files = {"fields/__init__.py": "", "fields/data.py": DATA.replace("#RANK#", "hvd.local_rank()"),
             "train.py": DATA_TRAIN}
    crash, flagged, findings = check_project(tmp_path, files)
    assert crash is None and flagged == {3: "wrong"} and "local_rank" in findings[3].evidence


def test_a_sampler_given_the_rank_is_a_partition(tmp_path):
    files = {"fields/__init__.py": "", "fields/data.py": DATA.replace("#RANK#", "hvd.rank()"), "train.py": DATA_TRAIN}
    crash, flagged, _ = check_project(tmp_path, files)
    assert crash is None and flagged == {}


ACCUMULATE = Source('''
    """Denoiser with gradient accumulation: horovodrun -np 4 python train.py"""
    import horovod.tensorflow as hvd
    import tensorflow as tf


    class Trainer:
        def __init__(self, net, opt, accum=4):
            self.net, self.opt, self.accum_steps = net, opt, accum
            self.accum = [tf.Variable(tf.zeros_like(v), trainable=False) for v in net.trainable_variables]

        @tf.function
        def step_single(self, y):
            with tf.GradientTape() as tape:
                loss = tf.reduce_mean(tf.square(self.net(y + tf.random.normal(tf.shape(y))) - y))
            tape = hvd.DistributedGradientTape(tape)
            grads = tape.gradient(loss, self.net.trainable_variables)
            self.opt.apply_gradients(zip(grads, self.net.trainable_variables))
            return loss

        @tf.function
        def step_accumulated(self, y):
            for a in self.accum:
                a.assign(tf.zeros_like(a))
            total = 0.0
            for micro in tf.split(y, self.accum_steps):
                with tf.GradientTape() as tape:
                    loss = tf.reduce_mean(tf.square(self.net(micro + tf.random.normal(tf.shape(micro))) - micro))
                #TAPE#
                grads = tape.gradient(loss / self.accum_steps, self.net.trainable_variables)
                for a, g in zip(self.accum, grads):
                    a.assign_add(g)
                total += loss
            self.opt.apply_gradients(zip([a.read_value() for a in self.accum], self.net.trainable_variables))
            return total

        def step(self, y):
            return self.step_accumulated(y) if self.accum_steps > 1 else self.step_single(y)


    hvd.init()
    gpus = tf.config.list_physical_devices("GPU")
    if gpus:
        tf.config.set_visible_devices(gpus[hvd.local_rank()], "GPU")
    images = tf.random.normal([2048, 16], seed=1)
    ds = tf.data.Dataset.from_tensor_slices(images).shard(hvd.size(), hvd.rank()).batch(64)
    net = tf.keras.Sequential([tf.keras.layers.Dense(32, activation="relu"), tf.keras.layers.Dense(16)])
    net.build((None, 16))
    trainer = Trainer(net, tf.keras.optimizers.Adam(1e-4 * hvd.size()))
    hvd.broadcast_variables(net.variables, root_rank=0)
    for epoch in range(3):
        total, n = 0.0, 0
        for batch in ds:
            total += float(trainer.step(batch))
            n += 1
        sums = hvd.allreduce(tf.constant([total, float(n)]), op=hvd.Sum)
        if hvd.rank() == 0:
            print(epoch, float(sums[0] / sums[1]))
            net.save_weights("denoiser.weights.h5")
''')


def test_gradients_accumulated_from_a_plain_tape_are_this_ranks_own(tmp_path):
    crash, flagged = check(tmp_path, ACCUMULATE.replace("#TAPE#", ""))
    assert crash is None and flagged == {5: "wrong"}


def test_gradients_accumulated_from_horovods_tape_are_averaged(tmp_path):
    crash, flagged = check(tmp_path, ACCUMULATE.replace("#TAPE#", "tape = hvd.DistributedGradientTape(tape)"))
    assert crash is None and flagged == {}


WARMUP = Source('''
    """Building footprints: horovodrun -np 4 python train.py"""
    import horovod.tensorflow as hvd
    import keras
    import numpy as np
    import tensorflow as tf


    class PolyLR(keras.optimizers.schedules.LearningRateSchedule):
        def __init__(self, base_lr, total_iters, power=0.9):
            self.base_lr, self.total_iters, self.power = base_lr, total_iters, power

        def __call__(self, step):
            frac = tf.minimum(tf.cast(step, tf.float32) / self.total_iters, 1.0)
            return self.base_lr * (1.0 - frac) ** self.power


    class Warmup(keras.callbacks.Callback):
        """Ramp the LR from target / size up to target over the first steps."""

        def __init__(self, target, steps):
            super().__init__()
            self.target, self.steps, self.seen = target, steps, 0

        def on_train_batch_begin(self, batch, logs=None):
            if self.seen <= self.steps:
                start = #START#
                self.model.optimizer.learning_rate.assign(start + (self.target - start) * self.seen / self.steps)
            self.seen += 1


    hvd.init()
    gpus = tf.config.list_physical_devices("GPU")
    if gpus:
        tf.config.set_visible_devices(gpus[hvd.local_rank()], "GPU")
    x, y = np.random.rand(3000, 16).astype("float32"), np.random.rand(3000, 1).astype("float32")
    files = np.arange(len(x))[hvd.rank()::hvd.size()]
    x, y = x[files], y[files]
    iters = len(files) // 32
    lr = 1e-3 * hvd.size()
    model = keras.Sequential([keras.layers.Dense(32, activation="relu"), keras.layers.Dense(1)])
    model.compile(optimizer=keras.optimizers.SGD(PolyLR(lr, 20 * iters)), loss="mse")
    hvd.broadcast_variables(model.variables, root_rank=0)
    model.fit(x, y, batch_size=32, epochs=20, callbacks=[Warmup(lr, 5 * iters)], verbose=2 if hvd.rank() == 0 else 0)
    if hvd.rank() == 0:
        model.save("footprints.keras")
''')


def test_a_warmup_ramping_up_to_the_scaled_lr_and_a_rank_dependent_schedule_length_are_fine(tmp_path):
    crash, flagged = check(tmp_path, WARMUP.replace("#START#", "self.target / hvd.size()"))
    assert crash is None and 4 not in flagged


def test_a_warmup_that_divides_the_lr_by_the_rank_is_rank_dependent(tmp_path):
    crash, flagged = check(tmp_path, WARMUP.replace("#START#", "self.target / (hvd.rank() + 1)"))
    assert crash is None and flagged.get(4) == "wrong"
