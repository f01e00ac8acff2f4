"""Graph-mode (tf.compat.v1) MLP surrogate: bus loads/injections -> voltage magnitudes and angles."""
import tensorflow as tf

v1 = tf.compat.v1


def dense(x, units, name, activation=None):
    with v1.variable_scope(name):
        w = v1.get_variable("kernel", [int(x.shape[-1]), units],
                            initializer=v1.glorot_uniform_initializer())
        b = v1.get_variable("bias", [units], initializer=v1.zeros_initializer())
        y = tf.matmul(x, w) + b
        return activation(y) if activation is not None else y


def build_surrogate(inputs, n_out, hidden=(512, 512, 256), keep_prob=None):
    h = inputs
    for i, units in enumerate(hidden):
        h = dense(h, units, f"fc{i}", activation=tf.nn.elu)
        if keep_prob is not None:
            h = tf.nn.dropout(h, rate=1.0 - keep_prob)
    return dense(h, n_out, "out")


def loss_and_metrics(pred, target, n_bus):
    vm_pred, va_pred = pred[:, :n_bus], pred[:, n_bus:]
    vm_true, va_true = target[:, :n_bus], target[:, n_bus:]
    mse = tf.reduce_mean(tf.square(pred - target))
    vm_mae = tf.reduce_mean(tf.abs(vm_pred - vm_true))
    va_mae = tf.reduce_mean(tf.abs(va_pred - va_true))
    return mse, vm_mae, va_mae


def build_residual_surrogate(inputs, n_out, width=512, blocks=4, keep_prob=None):
    """Deeper variant: pre-activation residual blocks of two dense layers."""
    h = dense(inputs, width, "stem")
    for i in range(blocks):
        with v1.variable_scope(f"block{i}"):
            r = dense(tf.nn.elu(h), width, "a", activation=tf.nn.elu)
            if keep_prob is not None:
                r = tf.nn.dropout(r, rate=1.0 - keep_prob)
            h = h + dense(r, width, "b")
    return dense(tf.nn.elu(h), n_out, "out")


ARCHS = {"mlp": build_surrogate, "resmlp": build_residual_surrogate}
