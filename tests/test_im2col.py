"""hvdkit's ResNet convolutions with small outputs computed as one matrix product (hvdkit/models/im2col.py).

For each framework: a convolution whose output has at most IM2COL_MAX_PIXELS pixels per image never reaches
the framework's convolution kernel (its calls are counted), and its output and both gradients equal the
kernel's (computed by the framework's own function, with the same weight) to float32 rounding; a larger
output still goes to the kernel. Shapes: ResNet34's last stage at 64 px (2 x 2, stride 1), its strided entry
(4 -> 2, 3 x 3 and 1 x 1), and odd sizes (5 -> 3 would be 9 pixels: kernel; 3 -> 2 strided: matrix product).
"""
import numpy as np
import pytest

from hvdkit.models.im2col import IM2COL_MAX_PIXELS, out_size, use_im2col

# (input side, in channels, out channels, kernel, stride, padding)
SMALL = [(2, 64, 48, 3, 1, 1), (4, 32, 40, 3, 2, 1), (4, 32, 40, 1, 2, 0), (3, 6, 5, 3, 2, 1), (1, 8, 8, 3, 1, 1)]
LARGE = [(5, 6, 5, 3, 2, 1), (8, 4, 4, 3, 1, 1)]


def test_rule_counts_output_pixels():
    assert IM2COL_MAX_PIXELS == 4  # the rule hvdkit/models/im2col.py documents
    # Sides worked by hand: floor((size + 2 * padding - kernel) / stride) + 1.
    assert [out_size(s, k, st, p) for s, _, _, k, st, p in SMALL] == [2, 2, 2, 2, 1]
    assert [out_size(s, k, st, p) for s, _, _, k, st, p in LARGE] == [3, 8]
    assert use_im2col(2, 2) and use_im2col(1, 4) and not use_im2col(3, 2) and not use_im2col(7, 7)


def _close(got, expected):
    scale = max(1.0, float(np.abs(expected).max()))
    np.testing.assert_allclose(got, expected, rtol=0, atol=2e-5 * scale)


@pytest.mark.torch
def test_torch_small_outputs_skip_the_kernel_and_match_it(monkeypatch):
    import torch
    from hvdkit.models.resnet_torch import Conv2d

    torch.manual_seed(0)
    kernel = torch.nn.Conv2d._conv_forward
    for shape in SMALL + LARGE:
        size, cin, cout, k, stride, pad = shape
        conv = Conv2d(cin, cout, k, stride=stride, padding=pad, bias=False)
        x = torch.randn(3, cin, size, size, requires_grad=True)
        calls = []
        monkeypatch.setattr(torch.nn.Conv2d, "_conv_forward",
                            lambda self, *a: calls.append(1) or kernel(self, *a))
        y = conv(x)
        assert bool(calls) == (shape in LARGE), shape
        expected = torch.nn.functional.conv2d(x, conv.weight, stride=stride, padding=pad)
        assert y.shape == expected.shape, shape
        g = torch.randn_like(expected)
        got_grads = torch.autograd.grad(y, (x, conv.weight), g)
        expected_grads = torch.autograd.grad(expected, (x, conv.weight), g)
        _close(y.detach().numpy(), expected.detach().numpy())
        for a, b in zip(got_grads, expected_grads):
            _close(a.numpy(), b.numpy())


@pytest.mark.tensorflow
@pytest.mark.slow
def test_keras_small_outputs_skip_the_kernel_and_match_it(monkeypatch):
    from hvdkit.models.resnet_tf import Conv2D, keras, tf

    tf.random.set_seed(0)
    kernel = keras.layers.Conv2D.convolution_op
    for shape in SMALL + LARGE:
        size, cin, cout, k, stride, pad = shape
        # The model's own spelling: "same" at stride 1, explicit zero padding + "valid" when strided.
        padding = "same" if stride == 1 and pad else "valid"
        conv = Conv2D(cout, k, strides=stride, padding=padding, use_bias=False)
        x = tf.random.normal((3, size, size, cin))
        if padding == "valid" and pad:
            x = tf.pad(x, [[0, 0], [pad, pad], [pad, pad], [0, 0]])
        calls = []
        monkeypatch.setattr(keras.layers.Conv2D, "convolution_op",
                            lambda self, *a: calls.append(1) or kernel(self, *a))
        with tf.GradientTape(persistent=True) as tape:
            tape.watch(x)
            y = conv(x)
            expected = tf.nn.conv2d(x, conv.kernel, stride, padding.upper())
        assert bool(calls) == (shape in LARGE), shape
        assert y.shape == expected.shape, shape
        g = tf.random.normal(expected.shape)
        got_grads = tape.gradient(y, [x, conv.kernel], output_gradients=g)
        expected_grads = tape.gradient(expected, [x, conv.kernel], output_gradients=g)
        _close(y.numpy(), expected.numpy())
        for a, b in zip(got_grads, expected_grads):
            _close(a.numpy(), b.numpy())
