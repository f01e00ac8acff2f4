import tensorflow as tf
import keras
import horovod.tensorflow as hvd


class Trainer:
    def __init__(self, model, optimizer, ema, hooks=()):
        self.model, self.optimizer, self.ema, self.hooks = model, optimizer, ema, list(hooks)
        self.loss_fn = keras.losses.SparseCategoricalCrossentropy(from_logits=True)

    @tf.function
    def train_step(self, images, labels):
        with tf.GradientTape() as tape:
            loss = self.loss_fn(labels, self.model(images, training=True))
        tape = hvd.DistributedGradientTape(tape)
        grads = tape.gradient(loss, self.model.trainable_variables)
        self.optimizer.apply_gradients(zip(grads, self.model.trainable_variables))
        return loss

    def fit(self, dataset, start_epoch, epochs, steps_per_epoch):
        it = iter(dataset)
        step = start_epoch * steps_per_epoch
        for epoch in range(start_epoch, epochs):
            for _ in range(steps_per_epoch):
                images, labels = next(it)
                loss = self.train_step(images, labels)
                self.ema.update()
                step += 1
                for h in self.hooks:
                    h.after_step(self, step, loss)
            for h in self.hooks:
                h.after_epoch(self, epoch)
