"""One launch of benchmarks/conv_bench.py: every distinct convolution of hvdkit's ResNet34 in one framework at
one image size, forward and backward alone, computed in each of the framework's ways.

    mpirun --bind-to none -n 1 python benchmarks/ranks/conv_layers_rank.py --image-size 64 --json-dir /tmp/r
    mpirun --bind-to none -n 1 python benchmarks/ranks/conv_layers_rank.py --framework tensorflow \
        --image-size 64 --json-dir /tmp/r

The layers are found from the model itself (PyTorch: a hook on every convolution; TensorFlow: its Conv2D
layers and the ZeroPadding2D before the strided ones), each as (input channels, output channels, kernel,
stride, padding, input height, input width). Each distinct layer, on a random batch, is timed as
y = conv(x); (y * y).sum() and its gradients (input and weight; the stem's input needs none). Ways:
  torch:       kernel         -- PyTorch's own convolution on NCHW tensors (oneDNN);
               channels_last  -- the same kernel on channels-last tensors;
               matmul         -- hvdkit's matrix-product path (resnet_torch.Conv2d's im2col), forced on.
  tensorflow:  kernel         -- TensorFlow's own convolution (NHWC, oneDNN), in a tf.function as training runs;
               matmul         -- hvdkit's matrix-product path (resnet_tf.Conv2D's im2col), forced on;
               xla            -- the kernel way compiled by XLA (tf.function(jit_compile=True)).
Per layer and way: the median of --reps timed runs after 2 untimed ones (TensorFlow traces and compiles in
those); per layer its training FLOPs (2 x multiply-adds forward; twice that backward, once without the input
gradient) and the way hvdkit's model takes. Writes DIR/rank0.json.
"""
import argparse
import json
import os
import statistics
import sys
import time

WAYS = {"torch": ("kernel", "channels_last", "matmul"), "tensorflow": ("kernel", "matmul", "xla")}


def torch_layers(image_size):
    """[(cin, cout, kernel, stride, padding, height, width), ...] of the model's convolutions, in order."""
    import torch
    from hvdkit.models.resnet_torch import resnet34

    model, found = resnet34(10, channels_last=False).eval(), []
    for m in model.modules():
        if isinstance(m, torch.nn.Conv2d):
            m.register_forward_hook(lambda mod, inp, out: found.append(
                (mod.in_channels, mod.out_channels, mod.kernel_size[0], mod.stride[0], mod.padding[0],
                 *inp[0].shape[2:])))
    with torch.no_grad():
        model(torch.randn(1, 3, image_size, image_size))
    return found


def tf_layers(image_size):
    """The same list from the Keras model: hvdkit's strided convolutions take their padding from the
    ZeroPadding2D layer named after them (resnet_tf._conv), "same" ones pad (kernel - 1) / 2 on each side."""
    from hvdkit.models.resnet_tf import Conv2D, resnet34

    model, found = resnet34(10, input_shape=(image_size, image_size, 3)), []
    names = {layer.name for layer in model.layers}
    for m in model.layers:
        if isinstance(m, Conv2D):
            _, h, w, cin = m.input.shape
            k, stride = m.kernel_size[0], m.strides[0]
            pad = (k - 1) // 2 if m.padding == "same" else 0
            if m.name + "_pad" in names:
                pad = model.get_layer(m.name + "_pad").padding[0][0]
                h, w = h - 2 * pad, w - 2 * pad
            found.append((cin, m.filters, k, stride, pad, h, w))
    return found


def hvdkit_way(framework, layer, image_size):
    """The way hvdkit's ResNet34 computes this layer on a CPU (resnet_torch: layout by image size, then Conv2d;
    resnet_tf: Conv2D)."""
    from hvdkit.models import im2col

    cin, cout, k, stride, pad, h, w = layer
    if im2col.use_im2col(im2col.out_size(h, k, stride, pad), im2col.out_size(w, k, stride, pad)):
        return "matmul"
    if framework == "tensorflow":
        return "kernel"
    from hvdkit.models import resnet_torch
    return "channels_last" if image_size >= resnet_torch.CHANNELS_LAST_FROM else "kernel"


def training_flops(layer, batch, first):
    from hvdkit.models.im2col import out_size

    cin, cout, k, stride, pad, h, w = layer
    forward = 2 * batch * out_size(h, k, stride, pad) * out_size(w, k, stride, pad) * cin * cout * k * k
    return forward * (2 if first else 3)


def median_seconds(step, reps, untimed=2, after=None):
    """The median wall time of `reps` calls of step() after `untimed` ones; after() runs untimed after each."""
    times = []
    for i in range(reps + untimed):
        t0 = time.perf_counter()
        step()
        if i >= untimed:
            times.append(time.perf_counter() - t0)
        if after:
            after()
    return statistics.median(times)


def time_tf_layer(layer, way, batch, reps, first):
    import tensorflow as tf
    import hvdkit.models.resnet_tf as rt

    cin, cout, k, stride, pad, h, w = layer
    rt.use_im2col = (lambda oh, ow: way == "matmul")  # the module-level name Conv2D.convolution_op calls
    same = stride == 1 and 2 * pad == k - 1  # resnet_tf._conv's choice
    conv = rt.Conv2D(cout, k, strides=stride, padding="same" if same else "valid", use_bias=False)
    grow = 0 if same else 2 * pad  # a "valid" layer sees the input after resnet_tf's ZeroPadding2D
    conv.build((batch, h + grow, w + grow, cin))
    x = tf.random.normal((batch, h, w, cin))

    @tf.function(jit_compile=way == "xla")
    def run(x):
        with tf.GradientTape() as tape:
            tape.watch(x)
            y = conv(tf.pad(x, [[0, 0], [pad, pad], [pad, pad], [0, 0]]) if grow else x)
            loss = tf.reduce_sum(y * y)
        return tape.gradient(loss, [conv.kernel] if first else [conv.kernel, x])

    return median_seconds(lambda: run(x), reps)  # on a CPU the call returns once the function has run


def time_torch_layer(layer, way, batch, reps, first):
    import torch
    import hvdkit.models.resnet_torch as rt

    cin, cout, k, stride, pad, h, w = layer
    rt.use_im2col = (lambda oh, ow: way == "matmul")  # the module-level name Conv2d.forward calls
    conv = rt.Conv2d(cin, cout, k, stride=stride, padding=pad, bias=False)
    x = torch.randn(batch, cin, h, w)
    if way == "channels_last":
        x = x.to(memory_format=torch.channels_last)
    x.requires_grad_(not first)

    def step():
        y = conv(x)
        (y * y).sum().backward()

    def clear():
        conv.weight.grad, x.grad = None, None

    return median_seconds(step, reps, after=clear)


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--framework", choices=WAYS, default="torch")
    p.add_argument("--image-size", type=int, default=64)
    p.add_argument("--batch", type=int, default=16)
    p.add_argument("--threads", type=int, default=2)
    p.add_argument("--reps", type=int, default=10)
    p.add_argument("--json-dir", required=True)
    args = p.parse_args()
    if args.framework == "torch":
        import torch
        torch.set_num_threads(args.threads)
        version, found, time_layer = torch.__version__, torch_layers(args.image_size), time_torch_layer
    else:
        from hvdkit.common.frameworks import import_quietly
        tf = import_quietly("tensorflow")
        tf.get_logger().setLevel("ERROR")  # one tf.function per layer and way: its retracing warning is expected
        tf.config.threading.set_intra_op_parallelism_threads(args.threads)  # as hvdkit.tensorflow.init() does
        tf.config.threading.set_inter_op_parallelism_threads(min(2, args.threads))
        version, found, time_layer = tf.__version__, tf_layers(args.image_size), time_tf_layer
    rows = []
    for layer in dict.fromkeys(found):  # distinct, in the model's order
        first = layer == found[0]
        row = {"layer": list(layer), "count": found.count(layer), "seconds": {},
               "flops": training_flops(layer, args.batch, first),
               "hvdkit_way": hvdkit_way(args.framework, layer, args.image_size)}
        for way in WAYS[args.framework]:
            row["seconds"][way] = time_layer(layer, way, args.batch, args.reps, first)
        rows.append(row)
        print(layer, {w: f"{s * 1e3:.1f} ms" for w, s in row["seconds"].items()}, flush=True)
    os.makedirs(args.json_dir, exist_ok=True)
    with open(os.path.join(args.json_dir, "rank0.json"), "w") as f:
        json.dump({"framework": args.framework, "version": version, "image_size": args.image_size,
                   "batch": args.batch, "threads": args.threads, "layers": rows}, f)
    return 0


if __name__ == "__main__":
    sys.exit(main())
