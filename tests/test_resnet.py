"""hvdkit's ResNet34 in both frameworks, and examples/resnet34/train_hvd.py really launched on 2 ranks.

The models: the standard parameter count, and the torch and Keras networks computing the same function
once torch's weights are copied into Keras (so the padding, strides and shortcuts are the same network).
The scripts: each Horovod script differs from its sequential twin only in `Horovod:` lines, and shows the
eight steps on the first screen of main(). The launches: rank 0 prints a progress line per step, the run
record is valid, its total is the sum of the per-rank rates, and each rank's rate is its timed images over
its timed seconds, recomputed here from the per-step times it reports.
"""
import ast
import difflib
import json
import math
import os
import re
import subprocess
import sys

import numpy as np
import pytest

from conftest import ROOT, run_ranks
from hvdkit.scale import record
from hvdkit.timeline import summarize

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


def _code(name):
    """The file's lines after its module docstring (which differs: it gives the launch command)."""
    with open(os.path.join(EXAMPLE, name)) as f:
        text = f.read()
    return text.splitlines()[ast.parse(text).body[0].end_lineno:]


@pytest.mark.parametrize("sequential,converted", PAIRS)
def test_conversion_is_only_horovod_lines(sequential, converted):
    """Every line the conversion adds or changes carries a `Horovod:` mark; it drops no line without one."""
    old, new = _code(sequential), _code(converted)
    added = 0
    for tag, i1, i2, j1, j2 in difflib.SequenceMatcher(None, old, new, autojunk=False).get_opcodes():
        if tag == "equal":
            continue
        block = "\n".join(["- " + line for line in old[i1:i2]] + ["+ " + line for line in new[j1:j2]])
        assert tag != "delete", f"{converted} drops sequential lines without a Horovod: line instead:\n{block}"
        unmarked = [line for line in new[j1:j2] if "Horovod:" not in line]
        assert not unmarked, f"unmarked lines in {converted}:\n{block}"
        added += j2 - j1
    assert 40 <= added <= 80, f"{converted}: {added} Horovod lines"


@pytest.mark.parametrize("converted", [c for _, c in PAIRS])
def test_eight_steps_on_the_first_screen_of_main(converted):
    code = _code(converted)
    start = code.index("def main():")
    screen = "\n".join(code[start:start + FIRST_SCREEN])
    steps = set()
    for first, last in re.findall(r"Horovod: steps? (\d)(?:-(\d))?", screen):
        steps.update(range(int(first), int(last or first) + 1))
    assert steps == set(range(1, 9)), f"{converted}: steps {sorted(steps)} in main()'s first {FIRST_SCREEN} lines"


def _check_record(rec, ranks, batch, steps):
    record.validate(rec)
    assert rec["ranks"] == ranks and rec["unit"] == "images"
    assert rec["batch_size"] == batch and rec["global_batch_size"] == batch * ranks
    assert rec["total_rate"] == pytest.approx(math.fsum(rec["rank_rates"]), rel=1e-9)
    for times, rate, mean in zip(rec["step_times"], rec["rank_rates"], rec["step_rate_mean"]):
        assert len(times) == steps and all(t > 0 for t in times)
        assert rate == pytest.approx(batch * steps / sum(times), rel=1e-9)
        assert mean == pytest.approx(sum(batch / t for t in times) / steps, rel=1e-9)
    slow = min(range(ranks), key=lambda r: rec["rank_rates"][r])
    assert rec["slowest_rank"] == {"rank": slow, "rate": rec["rank_rates"][slow]}
    assert math.isfinite(rec["loss"]) and rec["loss"] > 0


def _total_line(result):
    (line,) = result.lines("total:")
    return float(line.split()[0])


@pytest.mark.torch
@pytest.mark.horovod
@pytest.mark.slow
def test_torch_two_ranks_strong_batch_from_the_environment(tmp_path):
    """As `hvdkit scale --strong` runs it: record path and global batch from the environment, plus a checkpoint."""
    env = dict(os.environ, HVDKIT_RECORD=str(tmp_path / "run.json"), HVDKIT_GLOBAL_BATCH_SIZE="6")
    result = run_ranks(2, SCRIPT_TORCH, ["--image-size", "32", "--batch-size", "99",
                                   "--warmup-steps", "1", "--num-steps", "2", "--checkpoint-dir", "ck"],
                       env=env, cwd=str(tmp_path)).check()
    rec = json.loads((tmp_path / "run.json").read_text())
    _check_record(rec, ranks=2, batch=3, steps=2)
    assert rec["framework"] == "torch" and rec["threads_per_rank"] >= 1
    assert _total_line(result) == pytest.approx(rec["total_rate"], abs=0.006)
    assert len(result.lines("rank ")) == 2
    # Rank 0 alone shows every step: its time, images/s, loss, and from the first timed step the time left.
    progress = result.lines("step ")
    assert [p.split(":")[0] for p in progress] == ["1/3", "2/3", "3/3"], result.stdout
    assert progress[0].endswith("(untimed)") and re.search(r" img/s on rank 0, loss \d", progress[1])
    assert progress[1].endswith(" left") and not progress[2].endswith(" left")
    assert sorted(os.listdir(tmp_path / "ck")) == ["epoch-0000.ckpt", "epoch-0000.ckpt.sha256"]


@pytest.mark.tensorflow
@pytest.mark.horovod
@pytest.mark.slow
def test_tensorflow_two_ranks_fp16_allreduce_and_timeline_window(tmp_path):
    # Batch 8: with 2 images, batch norm over 1x1 maps gives gradients beyond float16's range (loss nan).
    result = run_ranks(2, SCRIPT, ["--image-size", "32", "--batch-size", "8", "--warmup-steps", "0",
                                   "--num-steps", "2", "--fp16-allreduce", "--timeline", "tl/trace.json",
                                   "--timeline-steps", "1:2", "--timeline-mark-cycles", "--json", "out/run.json"],
                       cwd=str(tmp_path)).check()
    rec = json.loads((tmp_path / "out" / "run.json").read_text())
    _check_record(rec, ranks=2, batch=8, steps=2)
    assert rec["framework"] == "tensorflow" and rec["fp16_allreduce"] is True
    assert _total_line(result) == pytest.approx(rec["total_rate"], abs=0.006)
    trace = (tmp_path / "tl" / "trace.json").read_text()
    assert "ALLREDUCE" in trace  # the window held one training step's gradient allreduces
    assert summarize(str(tmp_path / "tl" / "trace.json"))["cycles"]["count"] > 0  # --timeline-mark-cycles


# The TensorFlow cases import TensorFlow 12 times (~30 s): they run in `make test`, not in `make test-fast`.
@pytest.mark.parametrize("script", [pytest.param(SCRIPT, id="tensorflow", marks=pytest.mark.slow),
                                    pytest.param(SCRIPT_TORCH, id="torch")])
@pytest.mark.parametrize("args,message", [
    (["--image-size", "0"], "--image-size"),
    (["--global-batch-size", "x"], "--global-batch-size"),
    (["--data", "folder"], "--data-dir"),
    (["--timeline", "t.json", "--timeline-steps", "5:2"], "--timeline-steps"),
    (["--json", "."], "is a directory"),
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
