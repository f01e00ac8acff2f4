import math
import tensorflow as tf


class RadialAEV:
    """G_R(i) = sum_j exp(-eta (r_ij - Rs)^2) fc(r_ij), one block per neighbour species"""

    def __init__(self, n_species, rcr=5.2, eta=16.0, n_shifts=16):
        self.n_species, self.rcr, self.eta = n_species, rcr, eta
        self.shifts = tf.linspace(0.9, rcr, n_shifts)

    @property
    def length(self):
        return self.n_species * int(self.shifts.shape[0])

    def __call__(self, species, pos, seg):
        n = tf.shape(pos)[0]
        diff = pos[None, :, :] - pos[:, None, :]
        same_mol = tf.equal(seg[:, None], seg[None, :])
        off_diag = tf.logical_not(tf.eye(n, dtype=tf.bool))
        valid = tf.logical_and(same_mol, off_diag)
        r = tf.sqrt(tf.reduce_sum(diff ** 2, -1) + tf.cast(tf.logical_not(valid), pos.dtype))
        fc = tf.where(tf.logical_and(valid, r < self.rcr), 0.5 * tf.cos(math.pi * r / self.rcr) + 0.5,
                      tf.zeros_like(r))
        terms = tf.exp(-self.eta * (r[..., None] - self.shifts) ** 2) * fc[..., None]    # (n, n, S)
        onehot = tf.one_hot(species, self.n_species)                                       # (n, T)
        g = tf.einsum("ijs,jt->its", terms, onehot)
        return tf.reshape(g, [n, -1])
