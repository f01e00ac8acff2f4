"""A step function a factory made, stored on the model and called through that attribute, is walked.

`if not hasattr(model, "_step"): model._step = make_step(model, opt)` then `model._step(x, y)` in the
training loop: the walk follows the call to the factory's closure, whose tape Horovod wraps (or not). And a
GradScaler made `enabled=args.amp` (off by default) that reads the gradients before `synchronize()` is
flagged with the option named. Written from scratch for these tests: a Keras forecasting project whose
loop lives in a package module, and a PyTorch AMP script."""
from hvdkit.check import FLAGGED, OK

from crash_scripts import check_project

ENTRY = '''
    """Several horizons, one model each.  horovodrun -np 4 python train_all.py"""
    import numpy as np
    import tensorflow as tf
    import keras
    import horovod.tensorflow as hvd

    from fc.loop import train_epoch

    hvd.init()
    gpus = tf.config.list_physical_devices("GPU")
    if gpus:
        tf.config.set_visible_devices(gpus[hvd.local_rank()], "GPU")
    rng = np.random.default_rng(0)
    x = rng.normal(size=(4096, 24)).astype("float32")
    for steps in (1, 6, 24):
        y = x[:, :1] * steps
        ds = tf.data.Dataset.from_tensor_slices((x, y)).shard(hvd.size(), hvd.rank()).shuffle(512).batch(64)
        model = keras.Sequential([keras.layers.Dense(32, activation="relu"), keras.layers.Dense(1)])
        opt = keras.optimizers.Adam(1e-3 * hvd.size())
        for epoch in range(3):
            loss = train_epoch(model, opt, ds, first_epoch=epoch == 0)
            if hvd.rank() == 0:
                print(f"h{steps} epoch {epoch} loss {loss:.4f}")
                model.save_weights(f"h{steps}.weights.h5")
'''

LOOP = '''
    import tensorflow as tf
    import horovod.tensorflow as hvd


    def _make_step(model, opt):
        @tf.function
        def step(x, y):
            with tf.GradientTape() as tape:
                loss = tf.reduce_mean(tf.square(model(x, training=True) - y))
            {wrap}
            grads = tape.gradient(loss, model.trainable_variables)
            opt.apply_gradients(zip(grads, model.trainable_variables))
            return loss
        return step


    def train_epoch(model, opt, ds, first_epoch=False):
        if not hasattr(model, "_step"):
            model._step = _make_step(model, opt)
        total, n = 0.0, 0
        for i, (x, y) in enumerate(ds):
            loss = model._step(x, y)
            if first_epoch and i == 0:
                hvd.broadcast_variables(model.variables, root_rank=0)
                hvd.broadcast_variables(opt.variables, root_rank=0)
            total, n = total + float(loss), n + 1
        total = hvd.allreduce(tf.constant(total), op=hvd.Sum)
        n = hvd.allreduce(tf.constant(float(n)), op=hvd.Sum)
        return float(total / n)
'''

AMP = '''
    """AMP classifier.  horovodrun -np 4 python train_amp.py [--amp]"""
    import argparse

    import torch
    import horovod.torch as hvd
    from torch.utils.data import DataLoader, TensorDataset
    from torch.utils.data.distributed import DistributedSampler

    ap = argparse.ArgumentParser()
    ap.add_argument("--amp", action="store_true")
    args = ap.parse_args()
    hvd.init()
    torch.set_num_threads(1)
    ds = TensorDataset(torch.randn(4096, 16), torch.randint(0, 2, (4096,)))
    sampler = DistributedSampler(ds, num_replicas=hvd.size(), rank=hvd.rank())
    loader = DataLoader(ds, batch_size=64, sampler=sampler)
    model = torch.nn.Linear(16, 2)
    opt = torch.optim.SGD(model.parameters(), lr=0.01 * hvd.size())
    hvd.broadcast_parameters(model.state_dict(), root_rank=0)
    opt = hvd.DistributedOptimizer(opt, named_parameters=model.named_parameters())
    scaler = torch.cuda.amp.GradScaler(enabled=args.amp and torch.cuda.is_available())
    for epoch in range(3):
        sampler.set_epoch(epoch)
        for x, y in loader:
            opt.zero_grad()
            with torch.autocast(device_type="cpu", enabled=args.amp):
                loss = torch.nn.functional.cross_entropy(model(x), y)
            scaler.scale(loss).backward()
            scaler.step(opt)
            scaler.update()
        if hvd.rank() == 0:
            torch.save(model.state_dict(), "amp.pt")
'''


def step5(tmp_path, wrap):
    files = {"train_all.py": ENTRY, "fc/__init__.py": "", "fc/loop.py": LOOP.replace("{wrap}", wrap)}
    return check_project(tmp_path, files, script="train_all.py")[2][5]


def test_a_wrapped_tape_in_a_step_stored_on_the_model_is_read(tmp_path):
    assert step5(tmp_path, "tape = hvd.DistributedGradientTape(tape)").verdict == OK


def test_the_same_step_with_a_plain_tape_is_flagged(tmp_path):
    f = step5(tmp_path, "pass")
    assert f.verdict in FLAGGED and "averaged" in f.evidence, f


def test_a_scaler_off_by_default_names_its_option(tmp_path):
    f = check_project(tmp_path, {"train_amp.py": AMP}, script="train_amp.py")[2][5]
    assert f.verdict in FLAGGED and f.evidence.startswith("with --amp: "), f
