import tensorflow as tf


def pairwise_sq_dist(e):
    sq = tf.reduce_sum(tf.square(e), axis=1)
    return tf.maximum(sq[:, None] - 2.0 * tf.matmul(e, e, transpose_b=True) + sq[None, :], 0.0)


def triplet_loss(labels, emb, margin=0.2, mining="semihard"):
    """Triplet loss over all positive pairs of the batch with one mined negative per anchor."""
    d = pairwise_sq_dist(emb)
    same = tf.equal(labels[:, None], labels[None, :])
    pos_mask = tf.cast(same, d.dtype) - tf.eye(tf.shape(d)[0], dtype=d.dtype)
    neg_mask = 1.0 - tf.cast(same, d.dtype)
    if mining == "random":
        noise = tf.random.uniform(tf.shape(d))
        neg = tf.gather(d, tf.argmax(noise * neg_mask, axis=1), batch_dims=1)
        neg = tf.broadcast_to(neg[:, None], tf.shape(d))
    else:
        # semi-hard: closest negative that is still farther than the positive, else the farthest negative
        farther = neg_mask[:, None, :] * tf.cast(d[:, None, :] > d[:, :, None], d.dtype)
        big = tf.reduce_max(d) + 1.0
        semi = tf.reduce_min(d[:, None, :] + big * (1.0 - farther), axis=2)
        neg = tf.where(semi < big, semi, tf.reduce_max(d * neg_mask, axis=1, keepdims=True))
    loss = tf.nn.relu(d - neg + margin) * pos_mask
    return tf.reduce_sum(loss) / tf.maximum(tf.reduce_sum(pos_mask), 1.0)
