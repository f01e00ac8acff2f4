import argparse
import time

import tensorflow as tf
import keras
import horovod.tensorflow as hvd

from sparsetf import MaskedModel, configure_devices, sparsity_at
from sparsetf.ckpt import save_sparse
from sparsetf.data import cifar_datasets


def make_model():
    return keras.applications.MobileNetV2(input_shape=(32, 32, 3), alpha=0.5, weights=None, classes=10)


def main(argv=None):
    ap = argparse.ArgumentParser("GMP to 80% sparsity with a custom loop")
    ap.add_argument("--epochs", type=int, default=40)
    ap.add_argument("--batch-size", type=int, default=128)
    ap.add_argument("--lr", type=float, default=0.05)
    ap.add_argument("--final-sparsity", type=float, default=0.8)
    ap.add_argument("--prune-every", type=int, default=200, help="steps between mask updates")
    ap.add_argument("--logdir", default="logs/gmp")
    args = ap.parse_args(argv)

    hvd.init()
    configure_devices()

    train_ds, test_ds, steps_per_epoch = cifar_datasets(args.batch_size, hvd.rank(), hvd.size())
    total_steps = steps_per_epoch * args.epochs
    begin, end = int(0.1 * total_steps), int(0.7 * total_steps)

    model = make_model()
    pruner = MaskedModel(model)
    schedule = keras.optimizers.schedules.CosineDecay(args.lr * hvd.size(), total_steps)
    opt = keras.optimizers.SGD(learning_rate=schedule, momentum=0.9, nesterov=True)
    loss_fn = keras.losses.SparseCategoricalCrossentropy(from_logits=True)
    acc = keras.metrics.SparseCategoricalAccuracy()

    @tf.function
    def train_step(x, y, broadcast):
        with tf.GradientTape() as tape:
            loss = loss_fn(y, model(x, training=True))
        tape = hvd.DistributedGradientTape(tape)
        grads = tape.gradient(loss, model.trainable_variables)
        opt.apply_gradients(zip(grads, model.trainable_variables))
        if broadcast:
            hvd.broadcast_variables(model.variables, root_rank=0)
            hvd.broadcast_variables(opt.variables, root_rank=0)
        pruner.apply()
        return loss

    t0 = time.time()
    for step, (x, y) in enumerate(train_ds.take(total_steps), start=1):
        if begin <= step <= end and step % args.prune_every == 0:
            pruner.update_masks(sparsity_at(step, begin, end, args.final_sparsity))
        loss = train_step(x, y, step == 0)
        if step % steps_per_epoch == 0:
            # the test set is not sharded: each worker scores all 10k images, rank 0 reports
            acc.reset_state()
            for xt, yt in test_ds:
                acc.update_state(yt, model(xt, training=False))
            if hvd.rank() == 0:
                s = pruner.global_sparsity()
                print(f"step {step} loss {float(loss):.3f} test acc {float(acc.result()):.4f} "
                      f"sparsity {s:.3f} ({time.time() - t0:.0f}s)")
                save_sparse(model, pruner, args.logdir, step)


if __name__ == "__main__":
    main()
