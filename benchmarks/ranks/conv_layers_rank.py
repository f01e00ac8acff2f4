"""One launch of benchmarks/conv_bench.py: every distinct convolution of hvdkit's ResNet34 (PyTorch) at one
image size, forward and backward alone, computed three ways.

    mpirun --bind-to none -n 1 python benchmarks/ranks/conv_layers_rank.py --image-size 64 --json-dir /tmp/r

The layers are found by running the model once with a hook on every convolution (input shape, kernel,
stride, padding). Each distinct layer, on a random batch, is timed as y = conv(x); (y * y).sum().backward()
(input and weight gradients; the stem's input needs none):
  kernel         -- PyTorch's own convolution on NCHW tensors (oneDNN);
  channels_last  -- the same kernel on channels-last tensors;
  matmul         -- hvdkit's matrix-product path (hvdkit.models.resnet_torch.Conv2d's im2col), forced on.
Per layer and way: the median of --reps timed runs after 2 untimed ones; per layer its training FLOPs
(2 x multiply-adds forward; twice that backward, once without the input gradient) and the way hvdkit's model
takes. Writes DIR/rank0.json.
"""
import argparse
import json
import os
import statistics
import sys
import time

WAYS = ("kernel", "channels_last", "matmul")


def layers(image_size):
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


def hvdkit_way(layer, image_size):
    """The way hvdkit's ResNet34 computes this layer on a CPU (resnet_torch: layout by image size, then Conv2d)."""
    from hvdkit.models import im2col, resnet_torch

    cin, cout, k, stride, pad, h, w = layer
    if im2col.use_im2col(im2col.out_size(h, k, stride, pad), im2col.out_size(w, k, stride, pad)):
        return "matmul"
    return "channels_last" if image_size >= resnet_torch.CHANNELS_LAST_FROM else "kernel"


def time_layer(layer, way, batch, reps, first):
    import torch
    import hvdkit.models.resnet_torch as rt
    from hvdkit.models.im2col import out_size

    cin, cout, k, stride, pad, h, w = layer
    rt.use_im2col = (lambda oh, ow: way == "matmul")  # the module-level name Conv2d.forward calls
    conv = rt.Conv2d(cin, cout, k, stride=stride, padding=pad, bias=False)
    x = torch.randn(batch, cin, h, w)
    if way == "channels_last":
        x = x.to(memory_format=torch.channels_last)
    x.requires_grad_(not first)
    times = []
    for i in range(reps + 2):
        t0 = time.perf_counter()
        y = conv(x)
        (y * y).sum().backward()
        if i >= 2:
            times.append(time.perf_counter() - t0)
        conv.weight.grad, x.grad = None, None
    forward = 2 * batch * out_size(h, k, stride, pad) * out_size(w, k, stride, pad) * cin * cout * k * k
    return statistics.median(times), forward * (2 if first else 3)


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--image-size", type=int, default=64)
    p.add_argument("--batch", type=int, default=16)
    p.add_argument("--threads", type=int, default=2)
    p.add_argument("--reps", type=int, default=10)
    p.add_argument("--json-dir", required=True)
    args = p.parse_args()
    import torch
    torch.set_num_threads(args.threads)
    found = layers(args.image_size)
    rows = []
    for layer in dict.fromkeys(found):  # distinct, in the model's order
        first = layer == found[0]
        row = {"layer": list(layer), "count": found.count(layer), "seconds": {},
               "hvdkit_way": hvdkit_way(layer, args.image_size)}
        for way in WAYS:
            row["seconds"][way], row["flops"] = time_layer(layer, way, args.batch, args.reps, first)
        rows.append(row)
        print(layer, {w: f"{s * 1e3:.1f} ms" for w, s in row["seconds"].items()}, flush=True)
    os.makedirs(args.json_dir, exist_ok=True)
    with open(os.path.join(args.json_dir, "rank0.json"), "w") as f:
        json.dump({"image_size": args.image_size, "batch": args.batch, "threads": args.threads,
                   "torch": torch.__version__, "layers": rows}, f)
    return 0


if __name__ == "__main__":
    sys.exit(main())
