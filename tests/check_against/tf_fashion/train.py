"""Train the classifier on Fashion-MNIST in one process, with a custom GradientTape loop.

    python train.py --steps 400 --ckpt-dir ckpt
"""
import argparse

import tensorflow as tf

import data
import net


def parse():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--steps", type=int, default=400)
    p.add_argument("--batch-size", type=int, default=32)
    p.add_argument("--lr", type=float, default=0.001)
    p.add_argument("--subset", type=int, default=4096)
    p.add_argument("--seed", type=int, default=7)
    p.add_argument("--ckpt-dir", default="ckpt")
    return p.parse_args()


def main():
    args = parse()
    tf.random.set_seed(args.seed)
    dataset = data.train_set(args.subset).repeat().shuffle(1024, seed=args.seed).batch(args.batch_size)
    model = net.make()
    opt = tf.keras.optimizers.Adam(args.lr)
    loss_fn = tf.keras.losses.SparseCategoricalCrossentropy(from_logits=True)

    @tf.function
    def train_step(images, labels):
        with tf.GradientTape() as tape:
            loss = loss_fn(labels, model(images, training=True))
        grads = tape.gradient(loss, model.trainable_variables)
        opt.apply_gradients(zip(grads, model.trainable_variables))
        return loss

    for step, (images, labels) in enumerate(dataset.take(args.steps)):
        loss = train_step(images, labels)
        if step % 50 == 0:
            print(f"step {step} loss {float(loss):.4f}")
    tf.train.Checkpoint(model=model, optimizer=opt).save(args.ckpt_dir + "/ckpt")


if __name__ == "__main__":
    main()
