import numpy as np
import tensorflow as tf


def linear_schedule(timesteps, beta_start=1e-4, beta_end=0.02):
    betas = np.linspace(beta_start, beta_end, timesteps, dtype=np.float64)
    alpha_bar = np.cumprod(1.0 - betas)
    return {
        "T": timesteps,
        "sqrt_ab": tf.constant(np.sqrt(alpha_bar), tf.float32),
        "sqrt_1m_ab": tf.constant(np.sqrt(1.0 - alpha_bar), tf.float32),
    }


def q_sample(sched, x0, t, noise):
    a = tf.gather(sched["sqrt_ab"], t)[:, None, None, None]
    b = tf.gather(sched["sqrt_1m_ab"], t)[:, None, None, None]
    return a * x0 + b * noise
