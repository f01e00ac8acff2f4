import tensorflow as tf


def disp_to_depth(disp, min_depth, max_depth):
    min_disp, max_disp = 1.0 / max_depth, 1.0 / min_depth
    return 1.0 / (min_disp + (max_disp - min_disp) * disp)


def pose_vec_to_mat(vec):
    """[B, 6] (rx, ry, rz, tx, ty, tz) -> [B, 4, 4], small-angle rotation."""
    rx, ry, rz, tx, ty, tz = tf.unstack(vec, axis=-1)
    one = tf.ones_like(rx)
    rot = tf.stack([tf.stack([one, -rz, ry], -1),
                    tf.stack([rz, one, -rx], -1),
                    tf.stack([-ry, rx, one], -1)], -2)
    t = tf.stack([tx, ty, tz], -1)[..., None]
    top = tf.concat([rot, t], -1)
    bottom = tf.tile(tf.constant([[[0.0, 0.0, 0.0, 1.0]]]), [tf.shape(vec)[0], 1, 1])
    return tf.concat([top, bottom], 1)


def inverse_warp(src, depth, pose, K):
    """Sample `src` at the pixels where target points land after the rigid motion `pose`."""
    b, h, w = tf.shape(src)[0], tf.shape(src)[1], tf.shape(src)[2]
    ys, xs = tf.meshgrid(tf.range(h, dtype=tf.float32), tf.range(w, dtype=tf.float32), indexing="ij")
    pix = tf.stack([xs, ys, tf.ones_like(xs)], 0)
    pix = tf.tile(tf.reshape(pix, [1, 3, -1]), [b, 1, 1])
    cam = tf.linalg.inv(K) @ pix * tf.reshape(depth, [b, 1, -1])
    cam = tf.concat([cam, tf.ones([b, 1, h * w])], 1)
    proj = K @ (pose_vec_to_mat(pose) @ cam)[:, :3]
    u = proj[:, 0] / (proj[:, 2] + 1e-7)
    v = proj[:, 1] / (proj[:, 2] + 1e-7)
    u0 = tf.clip_by_value(tf.cast(tf.round(u), tf.int32), 0, w - 1)
    v0 = tf.clip_by_value(tf.cast(tf.round(v), tf.int32), 0, h - 1)
    flat = tf.reshape(src, [b, -1, 3])
    return tf.reshape(tf.gather(flat, v0 * w + u0, batch_dims=1), tf.shape(src))


def photometric_error(a, b):
    ssim = tf.image.ssim(a, b, max_val=1.0, filter_size=7)
    l1 = tf.reduce_mean(tf.abs(a - b), axis=[1, 2, 3])
    return 0.85 * (1.0 - ssim) / 2.0 + 0.15 * l1


def smoothness(disp, img):
    dx = tf.abs(disp[:, :, 1:] - disp[:, :, :-1])
    dy = tf.abs(disp[:, 1:] - disp[:, :-1])
    ix = tf.reduce_mean(tf.abs(img[:, :, 1:] - img[:, :, :-1]), -1, keepdims=True)
    iy = tf.reduce_mean(tf.abs(img[:, 1:] - img[:, :-1]), -1, keepdims=True)
    return tf.reduce_mean(dx * tf.exp(-ix)) + tf.reduce_mean(dy * tf.exp(-iy))
