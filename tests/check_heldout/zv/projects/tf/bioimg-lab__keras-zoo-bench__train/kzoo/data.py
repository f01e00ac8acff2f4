import tensorflow as tf
import keras


def image_datasets(root, image_size, batch_size, seed=123):
    common = dict(image_size=(image_size, image_size), batch_size=None, seed=seed, label_mode="int")
    train = keras.utils.image_dataset_from_directory(f"{root}/train", shuffle=True, **common)
    val = keras.utils.image_dataset_from_directory(f"{root}/val", shuffle=False, **common)
    n_classes = len(train.class_names)
    aug = keras.Sequential([keras.layers.RandomFlip("horizontal"), keras.layers.RandomRotation(0.1)])
    norm = lambda x, y: (tf.cast(x, tf.float32) / 255.0, y)
    train = (train.map(norm, num_parallel_calls=tf.data.AUTOTUNE)
             .map(lambda x, y: (aug(x, training=True), y), num_parallel_calls=tf.data.AUTOTUNE)
             .batch(batch_size).prefetch(tf.data.AUTOTUNE))
    val = val.map(norm).batch(batch_size).prefetch(tf.data.AUTOTUNE)
    return train, val, n_classes
