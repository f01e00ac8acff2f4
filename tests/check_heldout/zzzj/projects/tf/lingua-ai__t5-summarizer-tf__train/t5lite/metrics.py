import tensorflow as tf
import horovod.tensorflow as hvd


def rouge_l(h, r):
    if not h or not r:
        return 0.0
    dp = [[0] * (len(r) + 1) for _ in range(len(h) + 1)]
    for i in range(len(h)):
        for j in range(len(r)):
            dp[i + 1][j + 1] = dp[i][j] + 1 if h[i] == r[j] else max(dp[i][j + 1], dp[i + 1][j])
    lcs = dp[-1][-1]
    return 0.0 if lcs == 0 else 2 * lcs / (len(h) + len(r))


def global_average(total, count):
    t = hvd.allreduce(tf.constant([total, count], tf.float64), op=hvd.Sum)
    return float(t[0] / tf.maximum(t[1], 1.0))
