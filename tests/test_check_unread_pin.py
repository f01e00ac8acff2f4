"""`hvdkit check`, step 2, on a script whose device set-up is a call into the project's own code that is not
there (issue 39: a call into code that cannot be read makes the step "cannot tell", never "missing"). A module
of the project may import Horovod itself, as Horovod's examples do, and pin the GPU by the local rank: a call
into it handed nothing, whose value is no model, optimizer or data, is such a set-up. A factory handed nothing
(`net = build_net()`) makes what trains; a library's call handed nothing does not know the rank: with them
alone the pin stays "missing". When the module is there it is read, and what it does decides.

Written from scratch for these tests: a TF 2 tape trainer for seismic phase picking, its package left out."""
import textwrap

import pytest

from hvdkit.check.findings import MISSING, OK, UNKNOWN
from hvdkit.check.static import analyze

SCRIPT = textwrap.dedent("""
    import argparse

    import tensorflow as tf
    import horovod.tensorflow as hvd

    from phasenet_lite.io import read_waveforms
    from phasenet_lite.net import build_net
    from phasenet_lite.runtime import configure_devices


    def main():
        p = argparse.ArgumentParser()
        p.add_argument("--data", default="/scratch/picks.npz")
        p.add_argument("--epochs", type=int, default=20)
        args = p.parse_args()
        hvd.init()
        SETUP
        x, y = read_waveforms(args.data)
        ds = tf.data.Dataset.from_tensor_slices((x, y)).shard(hvd.size(), hvd.rank()).shuffle(4096).batch(64)
        net = build_net()
        opt = tf.keras.optimizers.Adam(1e-3 * hvd.size())
        loss_fn = tf.keras.losses.SparseCategoricalCrossentropy(from_logits=True)
        for epoch in range(args.epochs):
            for step, (xb, yb) in enumerate(ds):
                with tf.GradientTape() as tape:
                    loss = loss_fn(yb, net(xb, training=True))
                tape = hvd.DistributedGradientTape(tape)
                grads = tape.gradient(loss, net.trainable_variables)
                opt.apply_gradients(zip(grads, net.trainable_variables))
                if epoch == 0 and step == 0:
                    hvd.broadcast_variables(net.variables, root_rank=0)
                    hvd.broadcast_variables(opt.variables, root_rank=0)
            mean_loss = hvd.allreduce(loss)
            if hvd.rank() == 0:
                print(f"epoch {epoch} loss {float(mean_loss):.4f} on {n_gpus} GPUs")
                net.save_weights(f"ckpt/picker-{epoch}.weights.h5")


    if __name__ == "__main__":
        main()
""").lstrip()

RUNTIME = textwrap.dedent("""
    import tensorflow as tf


    def configure_devices():
        gpus = tf.config.list_physical_devices("GPU")
        for g in gpus:
            tf.config.experimental.set_memory_growth(g, True)
        return len(gpus)
""").lstrip()


def _step2(tmp_path, setup, runtime=None):
    (tmp_path / "train.py").write_text(SCRIPT.replace("SETUP", setup))
    (tmp_path / "pyproject.toml").write_text("[project]\nname = \"phasenet-lite\"\n")
    if runtime is not None:
        pkg = tmp_path / "phasenet_lite"
        pkg.mkdir()
        (pkg / "__init__.py").write_text("")
        (pkg / "runtime.py").write_text(runtime)
    findings, _, _ = analyze(str(tmp_path / "train.py"))
    return findings[2]


def test_a_set_up_of_the_absent_package_handed_nothing_may_pin_so_cannot_tell(tmp_path):
    f = _step2(tmp_path, "n_gpus = configure_devices()")
    assert f.verdict == UNKNOWN
    assert "configure_devices(...)" in f.evidence and "module `phasenet_lite` is not in the project" in f.evidence


@pytest.mark.parametrize("setup", [
    "n_gpus = len(tf.config.list_physical_devices('GPU'))",  # a library's query: it cannot pin by the rank
    "n_gpus = 0",  # nothing runs that could pin
])
def test_without_that_set_up_the_pin_is_missing(tmp_path, setup):
    assert _step2(tmp_path, setup).verdict == MISSING


def test_a_factory_of_the_absent_package_handed_nothing_makes_the_model_not_a_pin(tmp_path):
    # build_net() runs before any pin could matter and is handed nothing, yet what it makes is the model
    f = _step2(tmp_path, "n_gpus = 1")
    assert f.verdict == MISSING
    assert "build_net" not in f.evidence


def test_the_same_set_up_read_in_the_project_only_grows_memory_so_missing(tmp_path):
    assert _step2(tmp_path, "n_gpus = configure_devices()", RUNTIME).verdict == MISSING


def test_the_same_set_up_read_in_the_project_pinning_by_local_rank_is_ok(tmp_path):
    pins = RUNTIME.replace("import tensorflow as tf\n", "import tensorflow as tf\nimport horovod.tensorflow as hvd\n") \
        .replace("    return len(gpus)", "    if gpus:\n        tf.config.set_visible_devices(gpus[hvd.local_rank()], "
                 "\"GPU\")\n    return len(gpus)")
    assert _step2(tmp_path, "n_gpus = configure_devices()", pins).verdict == OK


# The device chosen by a value of the absent package: `set_device(dist.local_rank)`, `dist` a module of the
# project that is not there. Written from scratch: an audio tagger's entry, its `sndtag` package left out.
DEVICE = textwrap.dedent("""
    import horovod.torch as hvd
    import torch

    from sndtag import dist
    from sndtag.cnn import Cnn14


    def main():
        hvd.init()
        dist.setup()
        if torch.cuda.is_available():
            torch.cuda.set_device(CHOICE)
        model = Cnn14(classes=527).cuda()
        opt = hvd.DistributedOptimizer(torch.optim.Adam(model.parameters(), lr=1e-3 * hvd.size()),
                                       named_parameters=model.named_parameters())
        hvd.broadcast_parameters(model.state_dict(), root_rank=0)
        for step in range(1000):
            opt.zero_grad()
            model(torch.randn(8, 1, 64, 1000).cuda()).sum().backward()
            opt.step()


    if __name__ == "__main__":
        main()
""").lstrip()


def _device_step2(tmp_path, choice):
    (tmp_path / "train.py").write_text(DEVICE.replace("CHOICE", choice))
    (tmp_path / "pyproject.toml").write_text("[project]\nname = \"sndtag\"\n")
    findings, _, _ = analyze(str(tmp_path / "train.py"))
    return findings[2]


def test_a_gpu_index_read_from_the_absent_package_is_cannot_tell_naming_it(tmp_path):
    f = _device_step2(tmp_path, "dist.local_rank")
    assert f.verdict == UNKNOWN
    assert "`dist.local_rank` (line 12)" in f.evidence


@pytest.mark.parametrize("choice, verdict", [
    ("0", "wrong"),  # a literal: every rank the same GPU
    ("hvd.rank()", "wrong"),  # the global rank: no GPU index on 2+ nodes
    ("hvd.local_rank()", "ok"),
])
def test_a_gpu_index_the_script_shows_is_judged(tmp_path, choice, verdict):
    assert _device_step2(tmp_path, choice).verdict == verdict
