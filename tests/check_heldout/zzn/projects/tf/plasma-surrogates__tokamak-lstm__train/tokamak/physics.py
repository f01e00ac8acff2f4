import tensorflow as tf

MU0 = 4e-7 * 3.141592653589793


def power_balance_residual(x, pred, dt=0.01, p_idx=(0, 1), loss_idx=2):
    """dW/dt = P_heat - W / tau_E, with tau_E supplied as actuator channel `loss_idx` (scaled units).

    x: actuators (B, T, A) with P_NBI, P_ECH in channels p_idx; pred[..., 0] is W_mhd.
    """
    w = pred[..., 0]
    dw_dt = (w[:, 1:] - w[:, :-1]) / dt
    p_heat = tf.add_n([x[:, 1:, i] for i in p_idx])
    tau = tf.nn.softplus(x[:, 1:, loss_idx]) + 1e-3
    return dw_dt - (p_heat - w[:, 1:] / tau)


def nonneg_penalty(pred):
    """beta_N, li and q95 are positive."""
    return tf.reduce_mean(tf.nn.relu(-pred[..., 1:]))
