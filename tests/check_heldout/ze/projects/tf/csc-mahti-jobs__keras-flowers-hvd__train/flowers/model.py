import tensorflow as tf


def build_classifier(cfg):
    base = tf.keras.applications.MobileNetV2(input_shape=(cfg.image_size, cfg.image_size, 3),
                                             include_top=False, weights=cfg.weights)
    base.trainable = False
    inp = tf.keras.Input((cfg.image_size, cfg.image_size, 3))
    x = base(inp, training=False)
    x = tf.keras.layers.GlobalAveragePooling2D()(x)
    x = tf.keras.layers.Dropout(0.2)(x)
    return tf.keras.Model(inp, tf.keras.layers.Dense(5, activation="softmax")(x))
