"""ResNet34 on Horovod with PyTorch: train_resnet34_torch.py converted with hvdkit's eight steps.

    mpirun -n 8 python examples/resnet34/train_hvd_torch.py --image-size 64 --num-steps 5
    mpirun -n 8 python examples/resnet34/train_hvd.py --framework torch      # the same

Every line that differs from train_resnet34_torch.py carries a `# Horovod:` comment naming its step (of the
eight in docs/eight-steps.md); tests/test_resnet.py checks that nothing else changed. Rank 0 prints every
step's time, images/s, loss and the time left, then each rank's images/s and their sum. `--json PATH`
(default $HVDKIT_RECORD, set by `hvdkit scale`) writes the run record of docs/scale.md.
"""
import itertools
import sys

import resnet_common  # first: with --framework tensorflow it runs the TensorFlow twin before PyTorch loads

resnet_common.hand_over(__file__)

import torch  # noqa: E402
import torch.nn.functional as F  # noqa: E402

import horovod.torch as hvd  # noqa: E402  Horovod: its allgather, for the final report
import hvdkit.torch as hk  # noqa: E402  Horovod: the eight steps, one call each
from hvdkit.common.meter import Meter  # noqa: E402
from hvdkit.torch.resnet import resnet34  # noqa: E402

import resnet_data_torch  # noqa: E402


def main():
    args = resnet_common.parse_args(horovod=True)  # Horovod: adds --lr-warmup-steps, --fp16-allreduce, --json, ...
    window = (hk.timeline_window(args.timeline, args.timeline_steps, args.timeline_mark_cycles)  # Horovod: --timeline
              if args.timeline else None)  # Horovod: created before init, it records only the chosen steps
    ctx = hk.init(seed=args.seed, threads=args.threads)  # Horovod: steps 1-2, start Horovod, a share of the cores
    device = ctx.device  # Horovod: step 2, this rank's GPU (or the CPU)
    batch = resnet_common.batch_per_rank(args, ctx.size)  # Horovod: --global-batch-size is split over the ranks
    samples = batch * ctx.size * args.total_steps  # Horovod: synthetic images for every rank
    data, classes = resnet_data_torch.load(args, samples)
    loader = hk.shard(data, batch, shuffle=args.shuffle, seed=args.seed, drop_last=True)  # Horovod: step 3, see ready()
    resnet_common.check_steps(len(loader), len(data), batch, ctx.size)  # Horovod: steps per epoch on each rank
    model = resnet34(classes).to(device).train()
    opt = torch.optim.SGD(model.parameters(), lr=hk.scale_lr(args.lr), momentum=0.9)  # Horovod: step 4, LR x ranks
    sched = hk.warmup(opt, steps=args.lr_warmup_steps)  # Horovod: step 4, ramped up from --lr over the first steps
    opt = hk.distributed_optimizer(opt, model, compression=args.compression)  # Horovod: step 5, averaged gradients
    hk.broadcast_state(model, opt)  # Horovod: step 6, every rank starts from rank 0's weights
    ckpt = hk.Checkpointer(args.checkpoint_dir) if args.checkpoint_dir else None  # Horovod: step 7, rank 0 writes
    run = ckpt.restore(model=model, optimizer=opt, scheduler=sched) if ckpt else 0  # Horovod: step 7, all resume

    meter = Meter(args.total_steps, args.warmup_steps, batch,
                  every=args.print_every, rank=ctx.rank)  # Horovod: only rank 0 prints
    meter.say(resnet_common.banner(args, "torch", batch,
                                   ranks=ctx.size, threads=ctx.threads, ranks_per_node=ctx.local_size,  # Horovod: ranks
                                   cpu=device == "cpu"))
    batches = resnet_data_torch.ready(loader, args, device)
    for step, (x, y) in enumerate(itertools.islice(batches, args.total_steps)):  # Horovod: numbered for the timeline
        if window:  # Horovod: the timeline
            window.step(step)  # Horovod: start or stop the timeline
        opt.zero_grad()
        loss = F.cross_entropy(model(x), y)
        loss.backward()
        opt.step()
        sched.step()  # Horovod: step 4, the next LR of the warmup ramp
        meter.step(loss.item())  # .item() waits for the device: the clock stops when the step is done
    if window:  # Horovod: the timeline
        window.close()  # Horovod: complete on rank 0
    if ckpt:  # Horovod: step 7
        ckpt.save(run, model=model, optimizer=opt, scheduler=sched)  # Horovod: step 7, only rank 0 writes
    loss = hk.average_metrics({"loss": meter.loss_pair()})["loss"]  # Horovod: step 8, over every rank's steps
    ranks = hvd.allgather_object(meter.summary())  # Horovod: every rank's step times, for the report
    fields = resnet_common.record_fields(args, "torch", classes, {"torch": torch.__version__})
    meter.finish(ranks, loss, args.json, ctx.threads, resumed_run=run,  # Horovod: every rank; the record
                 device=ctx.device, **fields)  # Horovod: its device (a GPU per rank: the ideal is linear in ranks)
    return 0


if __name__ == "__main__":
    sys.exit(resnet_common.run(main))
