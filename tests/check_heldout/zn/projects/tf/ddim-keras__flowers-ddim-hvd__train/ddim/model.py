import keras
import tensorflow as tf
from keras import ops


class DiffusionModel(keras.Model):
    def __init__(self, network, cfg):
        super().__init__()
        self.network = network
        self.ema_network = keras.models.clone_model(network)
        self.cfg = cfg
        self.noise_loss_tracker = keras.metrics.Mean(name="n_loss")
        self.image_loss_tracker = keras.metrics.Mean(name="i_loss")
        # both networks are functional models with known shapes: nothing left to build
        self.built = True

    @property
    def metrics(self):
        return [self.noise_loss_tracker, self.image_loss_tracker]

    def diffusion_schedule(self, t):
        # cosine schedule expressed with signal/noise rates
        start = ops.arccos(self.cfg.max_signal_rate)
        end = ops.arccos(self.cfg.min_signal_rate)
        angles = start + t * (end - start)
        return ops.sin(angles), ops.cos(angles)   # noise_rates, signal_rates

    def denoise(self, noisy, noise_rates, signal_rates, training):
        net = self.network if training else self.ema_network
        pred_noises = net([noisy, noise_rates ** 2], training=training)
        pred_images = (noisy - noise_rates * pred_noises) / signal_rates
        return pred_noises, pred_images

    def _step_losses(self, images, training):
        images = images * 2.0 - 1.0
        b = tf.shape(images)[0]
        noises = tf.random.normal(tf.shape(images))
        t = tf.random.uniform((b, 1, 1, 1))
        noise_rates, signal_rates = self.diffusion_schedule(t)
        noisy = signal_rates * images + noise_rates * noises
        pred_noises, pred_images = self.denoise(noisy, noise_rates, signal_rates, training)
        return self.loss(noises, pred_noises), self.loss(images, pred_images)

    def train_step(self, images):
        with tf.GradientTape() as tape:
            n_loss, i_loss = self._step_losses(images, training=True)
            n_loss = ops.mean(n_loss)
        grads = tape.gradient(n_loss, self.network.trainable_weights)
        self.optimizer.apply_gradients(zip(grads, self.network.trainable_weights))
        self.noise_loss_tracker.update_state(n_loss)
        self.image_loss_tracker.update_state(ops.mean(i_loss))
        for w, ema_w in zip(self.network.weights, self.ema_network.weights):
            ema_w.assign(self.cfg.ema * ema_w + (1 - self.cfg.ema) * w)
        return {m.name: m.result() for m in self.metrics}

    def test_step(self, images):
        n_loss, i_loss = self._step_losses(images, training=False)
        self.noise_loss_tracker.update_state(ops.mean(n_loss))
        self.image_loss_tracker.update_state(ops.mean(i_loss))
        return {m.name: m.result() for m in self.metrics}

    def generate(self, num_images, diffusion_steps):
        size = self.cfg.image_size
        x = tf.random.normal((num_images, size, size, 3))
        step = 1.0 / diffusion_steps
        for i in range(diffusion_steps):
            t = ops.ones((num_images, 1, 1, 1)) - i * step
            noise_rates, signal_rates = self.diffusion_schedule(t)
            pred_noises, pred_images = self.denoise(x, noise_rates, signal_rates, training=False)
            nr, sr = self.diffusion_schedule(t - step)
            x = sr * pred_images + nr * pred_noises
        return ops.clip((pred_images + 1.0) / 2.0, 0.0, 1.0)
