"""One side of benchmarks/allreduce_bench.py (through benchmarks/harness.py): time in-place float32
sum-allreduces of each size, on every rank.

    mpirun -n 2 python benchmarks/ranks/allreduce_rank.py --impl hvd --sizes 4096,16777216 --json-dir /tmp/ar
    horovodrun --gloo -np 2 -H localhost:2 python benchmarks/ranks/allreduce_rank.py --impl hvd --json-dir /tmp/ar
    mpirun -n 2 python benchmarks/ranks/allreduce_rank.py --impl hvdkit --sizes 16777216 --json-dir /tmp/ar
    mpirun -n 2 python benchmarks/ranks/allreduce_rank.py --impl mpi4py --json-dir /tmp/ar
    BENCH_PAGE_ALIGNED=1 mpirun -n 2 -x BENCH_PAGE_ALIGNED python benchmarks/ranks/allreduce_rank.py --impl mpi4py \
        --json-dir /tmp/ar
    MASTER_ADDR=127.0.0.1 MASTER_PORT=29511 mpirun -n 2 -x MASTER_ADDR -x MASTER_PORT \
        python benchmarks/ranks/allreduce_rank.py --impl torch --json-dir /tmp/ar

Every rank pins itself to one core (what mpirun does for up to one rank per core; horovodrun does not),
checks one allreduce of rank-dependent values against the closed form, then times each call of
--iters allreduces of zeros (zeros: repeated in-place sums of anything else overflow). It writes
DIR/rankR.json: {"impl", "rank", "size", "info", "times": {bytes: [seconds per call]}}.
"""
import argparse
import json
import os
import sys
import time

from hvdkit.common.ranks import local_rank_and_size, rank_and_size

PAGE_ALIGNED = "BENCH_PAGE_ALIGNED"  # set: mpi4py's buffers start on a page boundary (NumPy's start 16 bytes in)


def pin_to_core(local_rank, local_size):
    """One core per rank, as mpirun binds: horovodrun leaves ranks free to wander between cores."""
    allowed = sorted(os.sched_getaffinity(0))
    if len(allowed) > 1 and local_size <= len(allowed):
        os.sched_setaffinity(0, {allowed[local_rank]})
    return sorted(os.sched_getaffinity(0))


def horovod_side(hvdkit_init=False):
    import torch
    import horovod.torch as hvd

    torch.set_num_threads(1)
    if hvdkit_init:
        import hvdkit.torch as hk
        hk.init(threads=1)  # hvdkit's CPU defaults for Horovod and OpenMPI (hvdkit/common/context.py)
    else:
        hvd.init()
    info = {"mpi_enabled": hvd.mpi_enabled(), "gloo_enabled": hvd.gloo_enabled(),
            "cycle_time_ms": os.environ.get("HOROVOD_CYCLE_TIME", "default (1)"),
            "controller": os.environ.get("HOROVOD_CONTROLLER", "default"),
            "settings": {k: v for k, v in os.environ.items() if k.startswith(("HOROVOD_", "OMPI_MCA_", "HVDKIT_"))}}

    def allreduce(buf):
        # A fixed name per size: Horovod's response cache then skips the full negotiation, as it does
        # for a model's gradients (unnamed calls get a new name each time and are negotiated afresh).
        hvd.allreduce_(buf, op=hvd.Sum, name=f"bench.{buf.numel()}")

    return (hvd.rank(), hvd.size(), hvd.local_rank(), hvd.local_size(), allreduce, _torch_buffer,
            hvd.barrier, hvd.shutdown, info)


def mpi4py_side():
    import numpy as np
    from mpi4py import MPI

    comm = MPI.COMM_WORLD
    local = comm.Split_type(MPI.COMM_TYPE_SHARED)

    def allreduce(buf):
        comm.Allreduce(MPI.IN_PLACE, buf, op=MPI.SUM)

    def buffer(n, value):
        if os.environ.get(PAGE_ALIGNED):  # as PyTorch's THP_MEM_ALLOC_ENABLE=1 places large tensors
            spare = np.full(n + 1024, value, dtype=np.float32)
            start = (-spare.ctypes.data % 4096) // 4
            return spare[start:start + n]
        return np.full(n, value, dtype=np.float32)

    info = {"mpi": MPI.Get_library_version().splitlines()[0]}
    return (comm.rank, comm.size, local.rank, local.size, allreduce, buffer, comm.Barrier, lambda: None, info)


def torch_side():
    import torch
    import torch.distributed as dist

    torch.set_num_threads(1)
    rank, size = rank_and_size()  # mpirun's
    dist.init_process_group("gloo", init_method="env://", rank=rank, world_size=size)
    local_rank, local_size = local_rank_and_size()
    return (rank, size, local_rank, local_size, dist.all_reduce, _torch_buffer, dist.barrier,
            dist.destroy_process_group, {"backend": dist.get_backend()})


def _torch_buffer(n, value):
    import torch
    return torch.full((n,), float(value), dtype=torch.float32)


SIDES = {"hvd": horovod_side, "hvdkit": lambda: horovod_side(hvdkit_init=True), "mpi4py": mpi4py_side,
         "torch": torch_side}


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                formatter_class=argparse.ArgumentDefaultsHelpFormatter)
    p.add_argument("--impl", choices=SIDES, required=True)
    p.add_argument("--sizes", default="4096,16777216", help="message sizes in bytes, comma-separated")
    p.add_argument("--iters", default="20", help="timed calls per size: one number, or one per size")
    p.add_argument("--untimed", "--warmup", type=int, default=3, help="untimed calls per size")
    p.add_argument("--no-pin", action="store_true", help="leave the ranks' core affinity as launched")
    p.add_argument("--json-dir", required=True, help="directory for rankR.json")
    args = p.parse_args(argv)
    sizes = [int(s) for s in args.sizes.split(",")]
    iters = [int(i) for i in args.iters.split(",")]
    iters = iters * len(sizes) if len(iters) == 1 else iters

    rank, size, local_rank, local_size, allreduce, buffer, barrier, finish, info = SIDES[args.impl]()
    info["cores"] = sorted(os.sched_getaffinity(0)) if args.no_pin else pin_to_core(local_rank, local_size)
    check = buffer(1024, rank + 1)
    allreduce(check)
    expected = size * (size + 1) / 2
    if not all(float(v) == expected for v in check):
        print(f"rank {rank}: allreduce gave {float(check[0])}, expected {expected}", file=sys.stderr)
        return 1
    times = {}
    for nbytes, n_iter in zip(sizes, iters):
        buf = buffer(nbytes // 4, 0)
        for _ in range(args.untimed):
            allreduce(buf)
        barrier()
        per_call = []
        for _ in range(n_iter):
            t0 = time.perf_counter()
            allreduce(buf)
            per_call.append(time.perf_counter() - t0)
        times[str(nbytes)] = per_call
    barrier()
    finish()
    os.makedirs(args.json_dir, exist_ok=True)
    with open(os.path.join(args.json_dir, f"rank{rank}.json"), "w") as f:
        json.dump({"impl": args.impl, "rank": rank, "size": size, "info": info, "times": times}, f)
    return 0


if __name__ == "__main__":
    sys.exit(main())
