import math

import tensorflow as tf


class VPSDE:
    def __init__(self, beta_min=0.1, beta_max=20.0, sub=False):
        self.beta_0, self.beta_1, self.sub = beta_min, beta_max, sub

    def marginal_prob(self, x, t):
        log_mean_coeff = -0.25 * t ** 2 * (self.beta_1 - self.beta_0) - 0.5 * t * self.beta_0
        mean = tf.exp(log_mean_coeff)[:, None, None, None] * x
        var = 1.0 - tf.exp(2.0 * log_mean_coeff)
        if self.sub:
            var = var ** 2
        return mean, tf.sqrt(var)


class VESDE:
    def __init__(self, sigma_min=0.01, sigma_max=50.0):
        self.sigma_min, self.sigma_max = sigma_min, sigma_max

    def marginal_prob(self, x, t):
        return x, self.sigma_min * (self.sigma_max / self.sigma_min) ** t


def get_sde(name):
    return {"vpsde": VPSDE(), "subvpsde": VPSDE(sub=True), "vesde": VESDE()}[name]


class warmup_schedule(tf.keras.optimizers.schedules.LearningRateSchedule):
    def __init__(self, lr, warmup):
        self.lr, self.warmup = lr, warmup

    def __call__(self, step):
        step = tf.cast(step, tf.float32)
        return self.lr * tf.minimum(1.0, (step + 1.0) / float(max(self.warmup, 1)))

    def get_config(self):
        return {"lr": self.lr, "warmup": self.warmup}


def dsm_loss(model, sde, x, eps=1e-5):
    t = tf.random.uniform([tf.shape(x)[0]], eps, 1.0)
    z = tf.random.normal(tf.shape(x))
    mean, std = sde.marginal_prob(x, t)
    perturbed = mean + std[:, None, None, None] * z
    score = model([perturbed, t], training=True)
    losses = tf.square(score * std[:, None, None, None] + z)
    return tf.reduce_mean(tf.reduce_sum(tf.reshape(losses, [tf.shape(x)[0], -1]), -1))
