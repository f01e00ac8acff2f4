"""Train the classifier on Fashion-MNIST with Horovod, with a custom GradientTape loop.

    horovodrun -np 4 python train_hvd.py --steps 400 --ckpt-dir ckpt
"""
import argparse

import horovod.tensorflow as hvd
import tensorflow as tf

import data
import net


def parse():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--steps", type=int, default=400, help="of the whole job, shared by the workers")
    p.add_argument("--batch-size", type=int, default=32, help="per worker")
    p.add_argument("--lr", type=float, default=0.001, help="for one worker; scaled by the number of workers")
    p.add_argument("--subset", type=int, default=4096)
    p.add_argument("--seed", type=int, default=7)
    p.add_argument("--ckpt-dir", default="ckpt")
    return p.parse_args()


def main():
    args = parse()
    hvd.init()
    gpus = tf.config.experimental.list_physical_devices("GPU")
    for gpu in gpus:
        tf.config.experimental.set_memory_growth(gpu, True)
    if gpus:
        tf.config.experimental.set_visible_devices(gpus[hvd.local_rank()], "GPU")
    tf.random.set_seed(args.seed)

    dataset = (data.train_set(args.subset).shard(hvd.size(), hvd.rank())
               .repeat().shuffle(1024, seed=args.seed).batch(args.batch_size))
    model = net.make()
    opt = tf.keras.optimizers.Adam(args.lr * hvd.size())
    loss_fn = tf.keras.losses.SparseCategoricalCrossentropy(from_logits=True)

    @tf.function
    def train_step(images, labels, first_batch):
        with tf.GradientTape() as tape:
            loss = loss_fn(labels, model(images, training=True))
        tape = hvd.DistributedGradientTape(tape)
        grads = tape.gradient(loss, model.trainable_variables)
        opt.apply_gradients(zip(grads, model.trainable_variables))
        if first_batch:
            hvd.broadcast_variables(model.variables, root_rank=0)
            hvd.broadcast_variables(opt.variables, root_rank=0)
        return loss

    for step, (images, labels) in enumerate(dataset.take(args.steps // hvd.size())):
        loss = train_step(images, labels, step == 0)
        if step % 50 == 0 and hvd.rank() == 0:
            print(f"step {step} loss {float(loss):.4f}")
    if hvd.rank() == 0:
        tf.train.Checkpoint(model=model, optimizer=opt).save(args.ckpt_dir + "/ckpt")


if __name__ == "__main__":
    main()
