"""One measurement of benchmarks/resnet_bench.py (through benchmarks/harness.py), in a 1-rank launch.

    mpirun --bind-to none -n 1 python benchmarks/ranks/resnet_limit_rank.py matmul --library torch --threads 2 \
        --json-dir /tmp/r
    mpirun --bind-to none -n 1 python benchmarks/ranks/resnet_limit_rank.py flops --sizes 64,224 --json-dir /tmp/r
    mpirun --bind-to none -n 1 python benchmarks/ranks/resnet_limit_rank.py step --framework tensorflow \
        --variant keras_batch_norm --image-size 64 --threads 2 --json-dir /tmp/r

matmul: float32 N x N products by one library at T threads; GFLOP/s of each timed round (2 N^3 per product).
flops: FLOPs per image of hvdkit's ResNet34 training step (forward and backward), counted by
torch.utils.flop_counter at each size (one pass over a batch of 2: the count is per image).
profile: where a torch step's time goes (torch.profiler: each operator's share of the self CPU time).
step: the examples' training step (synthetic batch made once, SGD with momentum) with hvdkit's defaults
(hvdkit's init: threads, TF's inter-op pool; TF: hk.train_step, whose XLA trial runs in extra untimed steps)
or one VARIANTS change; the time of every step, and the CPU
time per step of the compute threads and of the others (Horovod's background thread, MPI). Launched on
several ranks it averages gradients as the examples do (DistributedGradientTape / distributed_optimizer).
Writes DIR/rank<r>.json.
"""
import argparse
import json
import os
import sys
import time

# name: (framework, what it changes from hvdkit's defaults)
VARIANTS = {
    "hvdkit": ("both", "hvdkit's model and init() defaults"),
    "library_conv": ("both", "every convolution by the framework's own kernel, none as one matrix product "
                             "(hvdkit.models.im2col.IM2COL_MAX_PIXELS = 0)"),
    "keras_batch_norm": ("tensorflow", "Keras 3's own BatchNormalization layer instead of the fused kernel"),
    "xla": ("tensorflow", "the whole step compiled by XLA, tf.function(jit_compile=True): at 1 rank only (Horovod's "
                          "collectives cannot be compiled)"),
    "no_xla": ("tensorflow", "hk.train_step(jit_compile=False): the forward and backward pass not compiled by XLA "
                             "(hvdkit's step before its XLA trial)"),
    "inter_op_1": ("tensorflow", "one inter-op thread instead of init()'s min(2, threads)"),
    "onednn_off": ("tensorflow", "TF_ENABLE_ONEDNN_OPTS=0: Eigen's kernels instead of oneDNN's"),
    "horovod_tape": ("tensorflow", "Horovod's own hvd.DistributedGradientTape, whose Average divides the summed "
                                   "gradients in Horovod's thread, instead of hvdkit's (seeded with 1/size)"),
    "nchw": ("torch", "channels_last=False: NCHW activations at every image size"),
    "channels_last": ("torch", "channels_last=True: channels-last activations at every image size"),
    "torch_compile": ("torch", "torch.compile(model) (Inductor; its compile time is in the untimed steps)"),
    "page_aligned_thp": ("torch", "THP_MEM_ALLOC_ENABLE=1: PyTorch's own huge pages, large tensors aligned to the "
                                  "page (what hvdkit's launchers set before glibc's hugetlb tunable)"),
    "glibc_heap": ("torch", "HVDKIT_KEEP_HEAP=0: glibc's own mmap and trim thresholds, freed tensors given back to "
                            "the OS every step (init() keeps them in the heap: hvdkit/common/heap.py)"),
    "keep_heap": ("tensorflow", "hvdkit.common.heap.keep_in_heap() after init(), as hvdkit.torch.init() does"),
}


def matmul(args):
    n = args.size
    if args.library == "torch":
        import torch
        torch.set_num_threads(args.threads)
        a, b = torch.randn(n, n), torch.randn(n, n)

        def product():
            return a @ b
    else:
        import tensorflow as tf
        tf.config.threading.set_intra_op_parallelism_threads(args.threads)
        tf.config.threading.set_inter_op_parallelism_threads(1)
        a, b = tf.random.normal((n, n)), tf.random.normal((n, n))

        def product():
            return tf.matmul(a, b).numpy()  # .numpy() waits for the result
    for _ in range(3):
        product()
    rates = []
    for _ in range(args.rounds):
        start = time.perf_counter()
        for _ in range(args.products):
            product()
        rates.append(2 * n ** 3 * args.products / (time.perf_counter() - start) / 1e9)
    return {"library": args.library, "threads": args.threads, "matrix_size": n, "gflops": rates}


def flops(args):
    import torch
    from torch.utils.flop_counter import FlopCounterMode
    from hvdkit.models.resnet_torch import resnet34

    model = resnet34(args.num_classes)
    per_image = {}
    for size in args.sizes:
        x, y = torch.randn(2, 3, size, size), torch.randint(0, args.num_classes, (2,))
        with FlopCounterMode(display=False) as counter:
            torch.nn.functional.cross_entropy(model(x), y).backward()
        per_image[str(size)] = counter.get_total_flops() / 2
    return {"flops_per_image": per_image, "counted_by": "torch.utils.flop_counter.FlopCounterMode"}


def _tf_step(args):
    if args.variant == "onednn_off":
        os.environ["TF_ENABLE_ONEDNN_OPTS"] = "0"  # read when TensorFlow loads
    from hvdkit.common.frameworks import import_quietly
    tf = import_quietly("tensorflow")
    import keras
    import horovod.tensorflow as hvd
    import hvdkit.tensorflow as hk
    from hvdkit.models.resnet_tf import resnet34

    ctx = hk.init(seed=0, threads=args.threads)
    if args.variant == "keep_heap":
        from hvdkit.common.heap import keep_in_heap
        keep_in_heap()
    if args.variant == "inter_op_1":
        tf.config.threading.set_inter_op_parallelism_threads(1)
    model = resnet34(args.num_classes, input_shape=(args.image_size,) * 2 + (3,),
                     batch_norm="keras" if args.variant == "keras_batch_norm" else "fused")
    opt = keras.optimizers.SGD(0.0125, momentum=0.9)
    loss_fn = keras.losses.SparseCategoricalCrossentropy(from_logits=True)
    x = tf.random.normal((args.batch, args.image_size, args.image_size, 3))
    y = tf.random.uniform((args.batch,), 0, args.num_classes, tf.int64)

    settings = {"inter_op_threads": tf.config.threading.get_inter_op_parallelism_threads()}
    if args.variant in ("xla", "horovod_tape"):
        @tf.function(jit_compile=args.variant == "xla")
        def step():
            with tf.GradientTape() as tape:
                loss = loss_fn(y, model(x, training=True))
            if ctx.size > 1:  # the examples' step 5 before hk.train_step, by Horovod's own tape
                tape = hvd.DistributedGradientTape(tape)
            opt.apply_gradients(zip(tape.gradient(loss, model.trainable_variables), model.trainable_variables))
            return loss
    else:  # the example's step 5
        jit = False if args.variant == "no_xla" else "auto"
        train_step = hk.train_step(model, loss_fn, opt, jit_compile=jit)
        settings.update(trial_steps=hk.TrainStep.trial_length(jit), xla=train_step.report)

        def step():
            return train_step(x, y)

    if ctx.size > 1:
        hk.broadcast_state(model, opt)
    return lambda: float(step()), ctx, settings


def _torch_step(args):
    if args.variant == "page_aligned_thp":
        os.environ["THP_MEM_ALLOC_ENABLE"] = "1"  # read by torch's CPU allocator
    if args.variant == "glibc_heap":
        os.environ["HVDKIT_KEEP_HEAP"] = "0"  # read by init()
    import torch
    import hvdkit.torch as hk
    from hvdkit.models.resnet_torch import resnet34

    ctx = hk.init(seed=0, threads=args.threads)
    layout = {"nchw": False, "channels_last": True}.get(args.variant, "auto")
    model = resnet34(args.num_classes, channels_last=layout).train()
    forward = torch.compile(model) if args.variant == "torch_compile" else model
    opt = torch.optim.SGD(model.parameters(), lr=0.0125, momentum=0.9)
    if ctx.size > 1:
        opt = hk.distributed_optimizer(opt, model)  # the examples' step 5
        hk.broadcast_state(model, opt)
    x = torch.randn(args.batch, 3, args.image_size, args.image_size)
    y = torch.randint(0, args.num_classes, (args.batch,))

    def step():
        opt.zero_grad()
        loss = torch.nn.functional.cross_entropy(forward(x), y)
        loss.backward()
        opt.step()
        return loss.item()

    return step, ctx, {"channels_last": layout}


def profile(args):
    """Each aten operator's share of the profiled steps' self CPU time (hvdkit's defaults)."""
    from torch.profiler import profile as profiler
    args.variant = "hvdkit"
    run, ctx, settings = _torch_step(args)
    for _ in range(args.untimed):
        run()
    with profiler() as prof:
        for _ in range(args.steps):
            run()
    ops = [(e.key, e.self_cpu_time_total) for e in prof.key_averages() if e.key.startswith("aten::")]
    total = sum(t for _, t in ops)
    shares = {name: t / total for name, t in sorted(ops, key=lambda kv: -kv[1])[:8]}
    return {"framework": "torch", "image_size": args.image_size, "batch": args.batch, "threads": ctx.threads,
            "steps": args.steps, "self_cpu_share": shares, "self_cpu_ms_per_step": total / 1e3 / args.steps}


def thread_cpu():
    """CPU seconds so far of this process's threads: (compute, other). Compute: the main thread (PyTorch's
    forward and backward run there), TF's pools (tf_*) and OpenMP's workers (omp_*); other: Horovod's
    background thread, MPI's and the rest."""
    tick = os.sysconf("SC_CLK_TCK")
    compute = other = 0.0
    for tid in os.listdir("/proc/self/task"):
        try:
            with open(f"/proc/self/task/{tid}/comm") as f:
                name = f.read().strip()
            with open(f"/proc/self/task/{tid}/stat") as f:
                fields = f.read().rsplit(")", 1)[1].split()
        except OSError:  # the thread ended meanwhile
            continue
        cpu = (int(fields[11]) + int(fields[12])) / tick  # utime + stime
        if int(tid) == os.getpid() or name.startswith(("tf_", "omp_")):
            compute += cpu
        else:
            other += cpu
    return compute, other


def step(args):
    framework, _ = VARIANTS[args.variant]
    if framework not in ("both", args.framework):
        raise SystemExit(f"variant {args.variant} is for {framework}, not {args.framework}")
    if args.variant == "library_conv":
        import hvdkit.models.im2col
        hvdkit.models.im2col.IM2COL_MAX_PIXELS = 0  # read at each layer's call (TF: when the step is traced)
    run, ctx, settings = (_tf_step if args.framework == "tensorflow" else _torch_step)(args)
    start = time.perf_counter()
    for _ in range(args.untimed + settings.get("trial_steps", 0)):  # TF's XLA trial: untimed too
        run()
    untimed_s = time.perf_counter() - start
    if "xla" in settings:
        settings["xla"] = settings["xla"]()  # what the trial measured and chose
    times = []
    cpu_before, wall_before = thread_cpu(), time.perf_counter()
    for _ in range(args.steps):
        start = time.perf_counter()
        run()
        times.append(time.perf_counter() - start)
    cpu_after, wall = thread_cpu(), time.perf_counter() - wall_before
    return {"framework": args.framework, "variant": args.variant, "image_size": args.image_size,
            "batch": args.batch, "threads": ctx.threads, "rank": ctx.rank, "size": ctx.size, "settings": settings,
            "untimed_s": untimed_s, "step_times": times,
            "per_step_ms": {"wall": 1e3 * wall / args.steps,
                            "compute_cpu": 1e3 * (cpu_after[0] - cpu_before[0]) / args.steps,
                            "other_cpu": 1e3 * (cpu_after[1] - cpu_before[1]) / args.steps}}


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    sub = p.add_subparsers(dest="what", required=True)
    m = sub.add_parser("matmul")
    m.add_argument("--library", choices=("torch", "tensorflow"), required=True)
    m.add_argument("--threads", type=int, required=True)
    m.add_argument("--size", type=int, default=2048)
    m.add_argument("--products", type=int, default=10, help="products per timed round")
    m.add_argument("--rounds", type=int, default=5)
    f = sub.add_parser("flops")
    f.add_argument("--sizes", type=lambda s: [int(v) for v in s.split(",")], required=True)
    s = sub.add_parser("step")
    r = sub.add_parser("profile")
    s.add_argument("--framework", choices=("tensorflow", "torch"), required=True)
    s.add_argument("--variant", choices=sorted(VARIANTS), default="hvdkit")
    for parser in (r, s):
        parser.add_argument("--image-size", type=int, default=64)
        parser.add_argument("--batch", type=int, default=16)
        parser.add_argument("--threads", type=int, default=2)
        parser.add_argument("--steps", type=int, default=10)
        parser.add_argument("--untimed", "--warmup", type=int, default=3)
    for parser in (f, s, r):
        parser.add_argument("--num-classes", type=int, default=1000)
    for parser in (m, f, s, r):
        parser.add_argument("--json-dir", required=True)
    args = p.parse_args()
    result = {"matmul": matmul, "flops": flops, "step": step, "profile": profile}[args.what](args)
    os.makedirs(args.json_dir, exist_ok=True)
    with open(os.path.join(args.json_dir, f"rank{result.get('rank', 0)}.json"), "w") as fh:
        json.dump(result, fh)
    return 0


if __name__ == "__main__":
    sys.exit(main())
