import tensorflow as tf


def focal_heatmap_loss(gt, pred, alpha=2.0, beta=4.0):
    pred = tf.clip_by_value(pred, 1e-4, 1.0 - 1e-4)
    pos = tf.cast(tf.equal(gt, 1.0), tf.float32)
    neg = 1.0 - pos
    pos_loss = tf.math.log(pred) * tf.pow(1.0 - pred, alpha) * pos
    neg_loss = tf.math.log(1.0 - pred) * tf.pow(pred, alpha) * tf.pow(1.0 - gt, beta) * neg
    n = tf.maximum(tf.reduce_sum(pos), 1.0)
    return -(tf.reduce_sum(pos_loss) + tf.reduce_sum(neg_loss)) / n


def reg_l1(gt, pred, mask):
    mask = tf.expand_dims(mask, -1)
    return tf.reduce_sum(tf.abs(gt - pred) * mask) / tf.maximum(tf.reduce_sum(mask) * 2.0, 1.0)


def detection_loss(targets, outputs, wh_weight=0.1):
    heat_gt, wh_gt, off_gt, mask = targets
    heat, wh, off = outputs
    l_heat = focal_heatmap_loss(heat_gt, heat)
    l_wh = reg_l1(wh_gt, wh, mask)
    l_off = reg_l1(off_gt, off, mask)
    return l_heat + wh_weight * l_wh + l_off, (l_heat, l_wh, l_off)
