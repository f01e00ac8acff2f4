"""hvdkit's ResNet34 in both frameworks, and the examples' scripts.

The models: the standard parameter count, and the torch and Keras networks computing the same function
once torch's weights are copied into Keras (so the padding, strides and shortcuts are the same network).
The scripts: each Horovod script differs from its sequential twin only in `Horovod:` lines, and shows the
eight steps on the first screen of main(); bad arguments are one line. The launches, driven from outside
by hvdkit's tools as a user drives them, are in tests/test_tools_outside.py.
"""
import os
import re
import subprocess
import sys

import numpy as np
import pytest

from conftest import ROOT
from conversion import code, problems

EXAMPLE = os.path.join(ROOT, "examples", "resnet34")
SCRIPT = os.path.join(EXAMPLE, "train_hvd.py")
SCRIPT_TORCH = os.path.join(EXAMPLE, "train_hvd_torch.py")
PAIRS = [("train_resnet34.py", "train_hvd.py"), ("train_resnet34_torch.py", "train_hvd_torch.py")]
FIRST_SCREEN = 50  # lines of main() a reader sees without scrolling
PARAMS = 21_797_672      # torchvision.models.resnet34(): parameters (Keras: trainable weights)
BN_STATS = 17_024        # running mean + variance of 8,512 batch-norm channels (Keras: non-trainable)


@pytest.mark.torch
@pytest.mark.slow
def test_torch_resnet34_has_the_standard_parameter_count():
    from hvdkit.models.resnet_torch import count, resnet34
    model = resnet34()
    assert count(model) == (PARAMS, BN_STATS)
    assert sum(p.numel() for p in model.parameters()) == PARAMS
    assert count(resnet34(num_classes=10)) == (PARAMS - 990 * 513, BN_STATS)


@pytest.mark.tensorflow
@pytest.mark.slow
def test_keras_resnet34_has_the_standard_parameter_count():
    from hvdkit.models.resnet_tf import count, resnet34
    model = resnet34()
    assert count(model) == (PARAMS, BN_STATS)
    assert model.count_params() == PARAMS + BN_STATS  # Keras counts the statistics too: compare like with like
    assert resnet34(num_classes=10, input_shape=(32, 32, 3)).count_params() == PARAMS + BN_STATS - 990 * 513


def _keras_name(torch_name):
    name = torch_name.replace(".", "_").replace("downsample_0", "downsample_conv")
    name = name.replace("downsample_1", "downsample_bn")
    return {"conv1": "stem_conv", "bn1": "stem_bn"}.get(name, name)


@pytest.mark.torch
@pytest.mark.tensorflow
@pytest.mark.slow
def test_torch_and_keras_resnet34_compute_the_same_function():
    import torch
    from hvdkit.models.resnet_torch import resnet34 as torch_resnet34
    from hvdkit.models.resnet_tf import resnet34 as keras_resnet34

    torch.manual_seed(0)
    tm = torch_resnet34(num_classes=10)
    km = keras_resnet34(num_classes=10, input_shape=(40, 40, 3))  # 40 -> 20 -> 10 -> 5 -> 3 -> 2: odd sizes too
    with torch.no_grad():  # non-trivial batch-norm state, so eval mode uses it
        for name, b in tm.named_buffers():
            if name.endswith("running_mean"):
                b.normal_()
            elif name.endswith("running_var"):
                b.uniform_(0.5, 2.0)
        for name, p in tm.named_parameters():
            if p.dim() == 1:
                p.uniform_(0.5, 1.5) if name.endswith("weight") else p.normal_()
    ported = 0
    for name, m in tm.named_modules():
        if isinstance(m, torch.nn.Conv2d):
            weights = [m.weight.detach().numpy().transpose(2, 3, 1, 0)]
        elif isinstance(m, torch.nn.BatchNorm2d):
            weights = [t.detach().numpy() for t in (m.weight, m.bias, m.running_mean, m.running_var)]
        elif isinstance(m, torch.nn.Linear):
            weights = [m.weight.detach().numpy().T, m.bias.detach().numpy()]
        else:
            continue
        km.get_layer(_keras_name(name)).set_weights(weights)
        ported += sum(w.size for w in weights)
    assert ported == km.count_params()  # every Keras weight came from torch

    x = np.random.default_rng(0).standard_normal((3, 40, 40, 3)).astype(np.float32)
    for training in (False, True):
        tm.train(training)
        expected = tm(torch.from_numpy(x.transpose(0, 3, 1, 2))).detach().numpy()
        got = km(x, training=training).numpy()
        assert np.abs(expected).max() > 0.1
        np.testing.assert_allclose(got, expected, rtol=1e-3, atol=1e-3 * np.abs(expected).max())
    # The training pass updated the running statistics alike: torch's running variance is the unbiased batch
    # variance (layer4 sees 3 x 2 x 2 = 12 values per channel, so a biased one would be off by 12/11).
    for name, m in tm.named_modules():
        if isinstance(m, torch.nn.BatchNorm2d):
            layer = km.get_layer(_keras_name(name))
            np.testing.assert_allclose(layer.moving_mean.numpy(), m.running_mean.numpy(), rtol=1e-4, atol=1e-4)
            np.testing.assert_allclose(layer.moving_variance.numpy(), m.running_var.numpy(), rtol=1e-3, atol=1e-4)


@pytest.mark.torch
@pytest.mark.slow
def test_torch_channels_last_rule_changes_the_layout_not_the_result():
    """On a CPU, images from CHANNELS_LAST_FROM pixels run channels-last; the weights' gradients stay
    contiguous (Horovod's allreduce refuses other tensors), and the output is the NCHW network's."""
    import torch
    from hvdkit.models.resnet_torch import CHANNELS_LAST_FROM, resnet18

    assert CHANNELS_LAST_FROM == 128  # the measured rule docs/performance.md states
    torch.manual_seed(0)
    model = resnet18(num_classes=10)
    layouts = []
    model.conv1.register_forward_hook(lambda m, i, out: layouts.append(
        "nhwc" if not out.is_contiguous() and out.is_contiguous(memory_format=torch.channels_last) else "nchw"))
    for size, wanted in ((96, "nchw"), (128, "nhwc")):
        x = torch.randn(2, 3, size, size)
        got = model(x)
        assert layouts[-1] == wanted, f"{size} px"
        model.zero_grad()
        got.square().sum().backward()
        assert all(p.grad.is_contiguous() for p in model.parameters())
    model.eval()
    model.channels_last = False
    expected = model(x)
    model.channels_last = "auto"
    np.testing.assert_allclose(model(x).detach().numpy(), expected.detach().numpy(), rtol=1e-4, atol=1e-4)
    assert layouts[-2:] == ["nchw", "nhwc"]
    with pytest.raises(ValueError, match="channels_last"):
        resnet18(channels_last="yes")


@pytest.mark.parametrize("sequential,converted", PAIRS)
def test_conversion_is_only_horovod_lines(sequential, converted):
    """Every line the conversion adds or changes carries a `Horovod:` mark; it drops no line without one
    (tests/test_conversion.py counts them)."""
    bad = problems(os.path.join(EXAMPLE, sequential), os.path.join(EXAMPLE, converted))
    assert not bad, f"{converted}:\n" + "\n\n".join(bad)


@pytest.mark.parametrize("converted", [c for _, c in PAIRS])
def test_eight_steps_on_the_first_screen_of_main(converted):
    lines = code(os.path.join(EXAMPLE, converted))
    start = lines.index("def main():")
    screen = "\n".join(lines[start:start + FIRST_SCREEN])
    steps = set()
    for first, last in re.findall(r"Horovod: steps? (\d)(?:-(\d))?", screen):
        steps.update(range(int(first), int(last or first) + 1))
    assert steps == set(range(1, 9)), f"{converted}: steps {sorted(steps)} in main()'s first {FIRST_SCREEN} lines"


# The TensorFlow cases import TensorFlow 5 times (~15 s): they run in `make test`, not in `make test-fast`.
@pytest.mark.parametrize("script", [pytest.param(SCRIPT, id="tensorflow", marks=pytest.mark.slow),
                                    pytest.param(SCRIPT_TORCH, id="torch")])
@pytest.mark.parametrize("args,message", [
    (["--image-size", "0"], "--image-size"),
    (["--lr-warmup-steps", "x"], "--lr-warmup-steps"),
    (["--data", "folder"], "--data-dir"),
    (["--json", "run.json"], "unrecognized arguments: --json"),  # the tools' options are theirs, not the script's
    (["--lr", "-1"], "--lr"),
])
def test_bad_arguments_are_one_line_and_exit_2(tmp_path, script, args, message):
    proc = subprocess.run([sys.executable, script, *args], capture_output=True, text=True, cwd=tmp_path, timeout=60,
                          env=dict(os.environ, PYTHONPATH=ROOT))
    assert proc.returncode == 2
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith(os.path.basename(script) + ": error:"), proc.stderr
    assert message in lines[0], proc.stderr
    assert list(tmp_path.iterdir()) == []
