"""SlowOnly on FineGym-99 (element + event heads), Horovod + TF2 custom loop."""
import argparse

import tensorflow as tf
import horovod.tensorflow as hvd

from slowonly.data import gym_clips, sharded
from slowonly.model import SlowOnly
from slowonly.steps import make_train_step, evaluate
from slowonly.utils import setup_logger, Timer, make_manager

parser = argparse.ArgumentParser()
parser.add_argument("--elements", type=int, default=99)
parser.add_argument("--events", type=int, default=10)
parser.add_argument("--clips", type=int, default=512)
parser.add_argument("--val-clips", type=int, default=128)
parser.add_argument("--frames", type=int, default=4)
parser.add_argument("--size", type=int, default=32)
parser.add_argument("--batch-size", type=int, default=8)
parser.add_argument("--lr", type=float, default=0.01)
parser.add_argument("--epochs", type=int, default=120)
parser.add_argument("--decay-at", type=int, nargs=2, default=[90, 110])
parser.add_argument("--workdir", default="work/slowonly_gym99")


def main(args):
    hvd.init()
    for gpu in tf.config.list_physical_devices("GPU"):
        tf.config.experimental.set_memory_growth(gpu, True)
    gpus = tf.config.list_physical_devices("GPU")
    if gpus:
        tf.config.set_visible_devices(gpus[hvd.local_rank()], "GPU")
    log = setup_logger(hvd.rank(), args.workdir)

    train = gym_clips(args.clips, args.frames, args.size, args.elements, args.events, seed=0)
    val = gym_clips(args.val_clips, args.frames, args.size, args.elements, args.events, seed=1)
    train_ds = sharded(train, args.batch_size, hvd.rank(), hvd.size(), shuffle=True)
    val_ds = sharded(val, args.batch_size, hvd.rank(), hvd.size(), shuffle=False)

    steps_per_epoch = args.clips // (args.batch_size * hvd.size())
    lr = tf.keras.optimizers.schedules.PiecewiseConstantDecay(
        [args.decay_at[0] * steps_per_epoch, args.decay_at[1] * steps_per_epoch],
        [args.lr * hvd.size(), args.lr * hvd.size() * 0.1, args.lr * hvd.size() * 0.01])
    model = SlowOnly(args.elements, args.events)
    optimizer = tf.keras.optimizers.SGD(lr, momentum=0.9)
    train_step = make_train_step(model, optimizer)
    ckpt, manager = make_manager(model, optimizer, args.workdir + "/ckpt")

    for epoch in range(args.epochs):
        with Timer() as t:
            for step, (x, el, ev) in enumerate(train_ds):
                main_loss, aux_loss = train_step(x, el, ev)
                if epoch == 0 and step == 0:
                    hvd.broadcast_variables(model.variables, root_rank=0)
                    hvd.broadcast_variables(optimizer.variables, root_rank=0)
        el_acc, ev_acc = evaluate(model, val_ds)
        if hvd.rank() == 0:
            log.info("epoch %d loss %.3f/%.3f element@1 %.4f event@1 %.4f (%.0fs)",
                     epoch, main_loss, aux_loss, el_acc, ev_acc, t.elapsed)
            ckpt.epoch.assign(epoch)
            manager.save()


if __name__ == "__main__":
    main(parser.parse_args())
