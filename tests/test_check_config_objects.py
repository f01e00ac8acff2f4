"""Configuration objects, read as Python builds them:

- a dataclass field `world_size: int = field(default_factory=hvd.size)` calls hvd.size() whenever an
  instance is made without that field: made before hvd.init() it raises ValueError (Horovod 0.28.1, tried in
  the blind set zb) and step 1 is wrong; made after, or given the field by its YAML file, it is fine;
- `SimpleNamespace(**cfg).lr` is the entry cfg["lr"], with the writes into cfg before it is wrapped: a loader
  that scales the LR by hvd.size() and an optimizer factory that scales it again is hvd.size()**2.

Written from scratch for these tests: a Keras project (`orgkit/`) and a torch NER project (`nerkit/`)."""
from crash_scripts import Source, check_project
from hvdkit.check import OK, WRONG

KERAS_TRAIN = Source('''
    """Two-stage classifier.  horovodrun -np 4 python train.py --config configs/run.yaml"""
    import argparse

    import numpy as np
    import tensorflow as tf
    import horovod.tensorflow.keras as hvd

    from orgkit.config import RunConfig
    from orgkit.runtime import make_optimizer, setup

    ap = argparse.ArgumentParser()
    ap.add_argument("--config", default="configs/run.yaml")
    args = ap.parse_args()
    ORDER
    x = np.random.rand(1024, 16).astype("float32")
    y = np.random.randint(0, 3, 1024)
    ds = tf.data.Dataset.from_tensor_slices((x, y)).shard(cfg.world_size, rank).batch(cfg.batch_per_worker)
    model = tf.keras.Sequential([tf.keras.Input((16,)), tf.keras.layers.Dense(3)])
    opt = make_optimizer(cfg)
    model.compile(optimizer=opt, loss="sparse_categorical_crossentropy")
    callbacks = [hvd.callbacks.BroadcastGlobalVariablesCallback(0), hvd.callbacks.MetricAverageCallback()]
    if rank == 0:
        callbacks.append(tf.keras.callbacks.ModelCheckpoint("out/model.keras"))
    model.fit(ds, epochs=cfg.epochs, callbacks=callbacks, verbose=2 if rank == 0 else 0)
''')

KERAS_CONFIG = '''
    from dataclasses import dataclass, field

    import yaml
    import horovod.tensorflow.keras as hvd


    @dataclass
    class RunConfig:
        global_batch: int = 256
        lr: float = 1e-3
        epochs: int = 10
        world_size: int = field(default_factory=hvd.size)

        @classmethod
        def from_yaml(cls, path):
            with open(path) as fh:
                return cls(**(yaml.safe_load(fh) or {}))
'''

KERAS_RUNTIME = '''
    import tensorflow as tf
    import horovod.tensorflow.keras as hvd


    def setup():
        hvd.init()
        gpus = tf.config.list_physical_devices("GPU")
        if gpus:
            tf.config.set_visible_devices(gpus[hvd.local_rank()], "GPU")
        return hvd.rank()


    def make_optimizer(cfg):
        scaled = cfg.lr * hvd.size()
        return hvd.DistributedOptimizer(tf.keras.optimizers.Adam(scaled))
'''

BEFORE = """cfg = RunConfig.from_yaml(args.config)
    rank = setup()"""
AFTER = """rank = setup()
    cfg = RunConfig.from_yaml(args.config)"""


def keras_project(tmp_path, order, yaml_text="epochs: 20\n"):
    files = {"train.py": KERAS_TRAIN.replace("ORDER", order), "orgkit/__init__.py": "",
             "orgkit/config.py": KERAS_CONFIG, "orgkit/runtime.py": KERAS_RUNTIME, "configs/run.yaml": yaml_text}
    crash, _, found = check_project(tmp_path, files)
    return crash, found[1], found[4]


def test_a_default_factory_querying_horovod_before_init_crashes(tmp_path):
    crash, f1, f4 = keras_project(tmp_path, BEFORE)
    assert crash and crash["file"] == "orgkit/config.py" and crash["error"].startswith("ValueError"), crash
    assert f1.verdict == WRONG, f1
    # the walk read the YAML mapping while making the config: what it assigned later is still read
    assert f4.verdict == OK and "scaled by hvd.size()" in f4.evidence, f4


def test_made_after_init_it_is_fine(tmp_path):
    crash, f1, _ = keras_project(tmp_path, AFTER)
    assert crash is None and f1.verdict == OK, (crash, f1)


def test_a_field_the_yaml_file_gives_calls_no_factory(tmp_path):
    crash, _, _ = keras_project(tmp_path, BEFORE, "epochs: 20\nworld_size: 8\n")
    assert crash is None, crash


NER_TRAIN = '''
    """Clinical NER.  horovodrun -np 8 python train.py"""
    import argparse

    import torch
    import horovod.torch as hvd

    from nerkit import config as C
    from nerkit.optim import build_optimizer


    def main():
        ap = argparse.ArgumentParser()
        ap.add_argument("--config", default="configs/ner.yaml")
        args = ap.parse_args()
        hvd.init()
        torch.set_num_threads(1)
        cfg = C.load(args.config)
        data = torch.utils.data.TensorDataset(torch.randn(2048, 32), torch.randint(0, 5, (2048,)))
        sampler = torch.utils.data.distributed.DistributedSampler(data, num_replicas=hvd.size(), rank=hvd.rank())
        loader = torch.utils.data.DataLoader(data, batch_size=cfg.batch_size, sampler=sampler)
        model = torch.nn.Linear(32, 5)
        optimizer = build_optimizer(model, cfg)
        hvd.broadcast_parameters(model.state_dict(), root_rank=0)
        hvd.broadcast_optimizer_state(optimizer, root_rank=0)
        for epoch in range(cfg.epochs):
            sampler.set_epoch(epoch)
            correct = torch.zeros(())
            for x, y in loader:
                optimizer.zero_grad()
                out = model(x)
                torch.nn.functional.cross_entropy(out, y).backward()
                optimizer.step()
                correct += (out.argmax(1) == y).sum()
            acc = hvd.allreduce(correct, op=hvd.Sum) / len(data)
            if hvd.rank() == 0:
                print(epoch, acc.item())
                torch.save(model.state_dict(), "ner.pt")


    if __name__ == "__main__":
        main()
'''

NER_CONFIG = Source('''
    from types import SimpleNamespace

    import yaml
    import horovod.torch as hvd

    DEFAULTS = dict(batch_size=32, lr=5e-4, epochs=10, scale_lr=True)


    def load(path):
        with open(path) as fh:
            cfg = {**DEFAULTS, **yaml.safe_load(fh)}
        if cfg["scale_lr"]:
            cfg["lr"] = cfg["lr"] * hvd.size()  # linear scaling: batch_size is per worker
        return SimpleNamespace(**cfg)
''')

NER_OPTIM = Source('''
    import torch
    import horovod.torch as hvd


    def build_optimizer(model, cfg):
        opt = torch.optim.Adam(model.parameters(), lr=cfg.lr * hvd.size())
        return hvd.DistributedOptimizer(opt, named_parameters=model.named_parameters())
''')


def ner_project(tmp_path, optim=NER_OPTIM):
    files = {"train.py": NER_TRAIN, "nerkit/__init__.py": "", "nerkit/config.py": NER_CONFIG,
             "nerkit/optim.py": optim, "configs/ner.yaml": "batch_size: 32\nepochs: 10\n"}
    return check_project(tmp_path, files)[2][4]


def test_an_lr_scaled_in_the_config_and_again_in_the_factory_is_wrong(tmp_path):
    f4 = ner_project(tmp_path)
    assert f4.verdict == WRONG and "twice" in f4.evidence, f4


def test_scaled_once_in_the_config_is_ok(tmp_path):
    f4 = ner_project(tmp_path, NER_OPTIM.replace("lr=cfg.lr * hvd.size()", "lr=cfg.lr"))
    assert f4.verdict == OK, f4
