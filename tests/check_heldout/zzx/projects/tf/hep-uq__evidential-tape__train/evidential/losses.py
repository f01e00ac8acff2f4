import math

import tensorflow as tf


def nig_nll(y, out):
    gamma, nu, alpha, beta = tf.split(out, 4, axis=-1)
    omega = 2.0 * beta * (1.0 + nu)
    nll = (0.5 * tf.math.log(math.pi / nu) - alpha * tf.math.log(omega)
           + (alpha + 0.5) * tf.math.log(nu * (y - gamma) ** 2 + omega)
           + tf.math.lgamma(alpha) - tf.math.lgamma(alpha + 0.5))
    return tf.reduce_mean(nll)


def nig_reg(y, out):
    gamma, nu, alpha, _ = tf.split(out, 4, axis=-1)
    return tf.reduce_mean(tf.abs(y - gamma) * (2.0 * nu + alpha))


def evidential_loss(y, out, coeff=1e-2):
    return nig_nll(y, out) + coeff * nig_reg(y, out)


def uncertainties(out):
    gamma, nu, alpha, beta = tf.split(out, 4, axis=-1)
    aleatoric = beta / (alpha - 1.0)
    epistemic = beta / (nu * (alpha - 1.0))
    return gamma, aleatoric, epistemic
