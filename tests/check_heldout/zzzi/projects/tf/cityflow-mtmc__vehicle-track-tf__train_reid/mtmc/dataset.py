import os
import xml.etree.ElementTree as ET

import tensorflow as tf


def read_label_xml(root, xml_name, img_dir):
    """AI City ReID labels: <Item imageName=... vehicleID=... cameraID=.../>"""
    tree = ET.parse(os.path.join(root, xml_name))
    paths, vids, cams = [], [], []
    for it in tree.getroot().iter('Item'):
        paths.append(os.path.join(root, img_dir, it.get('imageName')))
        vids.append(int(it.get('vehicleID')))
        cams.append(int(it.get('cameraID')[1:]))
    return paths, vids, cams


def make_dataset(paths, labels, size, training, batch_size, rank, world):
    ds = tf.data.Dataset.from_tensor_slices((paths, labels)).shard(world, rank)
    if training:
        ds = ds.shuffle(10000).repeat()

    def load(p, y):
        x = tf.image.resize(tf.image.decode_jpeg(tf.io.read_file(p), 3), size)
        if training:
            x = tf.image.random_flip_left_right(x)
            x = tf.image.random_brightness(x, 0.2)
        return tf.keras.applications.efficientnet.preprocess_input(x), y

    return ds.map(load, num_parallel_calls=tf.data.AUTOTUNE).batch(batch_size, drop_remainder=training)
