import logging
import os

import tensorflow as tf
import horovod.tensorflow as hvd

from . import comm

logger = logging.getLogger("tfvision2")


def inference_on_dataset(model, dataset):
    correct, total = tf.constant(0.0), tf.constant(0.0)
    for images, labels in dataset:
        pred = tf.argmax(model(images, training=False), axis=1)
        correct += tf.reduce_sum(tf.cast(tf.equal(pred, labels), tf.float32))
        total += tf.cast(tf.shape(labels)[0], tf.float32)
    correct, total = comm.reduce_sum(correct, "eval_correct"), comm.reduce_sum(total, "eval_total")
    results = {"top1": float(correct / tf.maximum(total, 1.0))}
    logger.info("Evaluation: %s", results)
    return results


class SimpleTrainer:
    def __init__(self, cfg, model, dataset):
        self.cfg, self.model, self.data_iter = cfg, model, iter(dataset)
        lr = cfg.SOLVER.BASE_LR * comm.get_world_size()
        sched = tf.keras.optimizers.schedules.PolynomialDecay(lr, cfg.SOLVER.MAX_ITER, end_learning_rate=0.0)
        self.optimizer = tf.keras.optimizers.SGD(sched, momentum=cfg.SOLVER.MOMENTUM)
        self.loss_fn = tf.keras.losses.SparseCategoricalCrossentropy(from_logits=False)
        self.ckpt = tf.train.Checkpoint(model=model, optimizer=self.optimizer, step=tf.Variable(0, dtype=tf.int64))
        self.manager = tf.train.CheckpointManager(self.ckpt, cfg.OUTPUT_DIR, max_to_keep=3)
        self.start_iter, self.eval_fn = 0, None

    def resume_or_load(self, resume=True):
        if resume and self.manager.latest_checkpoint:
            self.ckpt.restore(self.manager.latest_checkpoint)
            self.start_iter = int(self.ckpt.step.numpy())

    @tf.function
    def run_step(self, images, labels, first_step):
        with tf.GradientTape() as tape:
            loss = self.loss_fn(labels, self.model(images, training=True))
        tape = hvd.DistributedGradientTape(tape)
        grads = tape.gradient(loss, self.model.trainable_variables)
        self.optimizer.apply_gradients(zip(grads, self.model.trainable_variables))
        if first_step:
            hvd.broadcast_variables(self.model.variables, root_rank=0)
            hvd.broadcast_variables(self.optimizer.variables, root_rank=0)
        return loss

    def train(self):
        for it in range(self.start_iter, self.cfg.SOLVER.MAX_ITER):
            images, labels = next(self.data_iter)
            loss = self.run_step(images, labels, it == self.start_iter)
            self.ckpt.step.assign(it + 1)
            if comm.is_main_process() and it % 20 == 0:
                logger.info("iter %d loss %.4f", it, float(loss))
            if comm.is_main_process() and (it + 1) % self.cfg.SOLVER.CHECKPOINT_PERIOD == 0:
                self.manager.save(checkpoint_number=it + 1)
            if self.eval_fn is not None and (it + 1) % self.cfg.TEST.EVAL_PERIOD == 0:
                self.eval_fn()


class GradAccumTrainer(SimpleTrainer):
    """Accumulate ACCUM_STEPS micro-batches locally, then apply once (saves memory on big inputs)."""

    @tf.function
    def run_step(self, images, labels, first_step):
        accum = [tf.zeros_like(v) for v in self.model.trainable_variables]
        for images_k, labels_k in zip(tf.split(images, self.cfg.SOLVER.ACCUM_STEPS), tf.split(labels, self.cfg.SOLVER.ACCUM_STEPS)):
            with tf.GradientTape() as tape:
                loss = self.loss_fn(labels_k, self.model(images_k, training=True)) / self.cfg.SOLVER.ACCUM_STEPS
            grads = tape.gradient(loss, self.model.trainable_variables)
            accum = [a + g for a, g in zip(accum, grads)]
        self.optimizer.apply_gradients(zip(accum, self.model.trainable_variables))
        if first_step:
            hvd.broadcast_variables(self.model.variables, root_rank=0)
            hvd.broadcast_variables(self.optimizer.variables, root_rank=0)
        return loss * self.cfg.SOLVER.ACCUM_STEPS


def build_trainer(cfg, model, dataset):
    cls = GradAccumTrainer if cfg.SOLVER.ACCUM_STEPS > 1 else SimpleTrainer
    logger.info("Using %s", cls.__name__)
    return cls(cfg, model, dataset)
