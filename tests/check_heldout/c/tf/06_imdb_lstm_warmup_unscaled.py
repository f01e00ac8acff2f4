"""Bidirectional LSTM sentiment classifier on IMDB, distributed with Horovod."""
import argparse
import os
import time

import tensorflow as tf
import horovod.tensorflow.keras as hvd


def get_args():
    parser = argparse.ArgumentParser()
    parser.add_argument('--vocab', type=int, default=20000)
    parser.add_argument('--maxlen', type=int, default=200)
    parser.add_argument('--embed-dim', type=int, default=128)
    parser.add_argument('--batch-size', type=int, default=64)
    parser.add_argument('--epochs', type=int, default=15)
    parser.add_argument('--lr', type=float, default=1e-3)
    parser.add_argument('--warmup-epochs', type=int, default=2)
    parser.add_argument('--save-dir', default='./imdb_ckpt')
    return parser.parse_args()


def setup_devices():
    gpus = tf.config.experimental.list_physical_devices('GPU')
    for gpu in gpus:
        tf.config.experimental.set_memory_growth(gpu, True)
    if gpus:
        tf.config.experimental.set_visible_devices(gpus[hvd.local_rank()], 'GPU')


def load_imdb(vocab, maxlen):
    (x_train, y_train), (x_test, y_test) = tf.keras.datasets.imdb.load_data(num_words=vocab)
    x_train = tf.keras.preprocessing.sequence.pad_sequences(x_train, maxlen=maxlen)
    x_test = tf.keras.preprocessing.sequence.pad_sequences(x_test, maxlen=maxlen)
    return (x_train, y_train), (x_test, y_test)


def make_model(vocab, maxlen, embed_dim):
    inputs = tf.keras.Input(shape=(maxlen,), dtype='int32')
    x = tf.keras.layers.Embedding(vocab, embed_dim)(inputs)
    x = tf.keras.layers.Bidirectional(tf.keras.layers.LSTM(64, return_sequences=True))(x)
    x = tf.keras.layers.Bidirectional(tf.keras.layers.LSTM(32))(x)
    x = tf.keras.layers.Dense(64, activation='relu')(x)
    x = tf.keras.layers.Dropout(0.5)(x)
    outputs = tf.keras.layers.Dense(1, activation='sigmoid')(x)
    return tf.keras.Model(inputs, outputs)


def make_optimizer(lr):
    # linear scaling rule
    opt = tf.keras.optimizers.Adam(learning_rate=lr * hvd.size())
    return hvd.DistributedOptimizer(opt)


def main():
    args = get_args()
    hvd.init()
    setup_devices()

    (x_train, y_train), (x_test, y_test) = load_imdb(args.vocab, args.maxlen)

    train_ds = tf.data.Dataset.from_tensor_slices((x_train, y_train))
    train_ds = train_ds.shard(num_shards=hvd.size(), index=hvd.rank())
    train_ds = train_ds.shuffle(len(x_train) // hvd.size()).batch(args.batch_size).repeat()
    val_ds = tf.data.Dataset.from_tensor_slices((x_test, y_test)).batch(512)

    steps_per_epoch = len(x_train) // hvd.size() // args.batch_size

    model = make_model(args.vocab, args.maxlen, args.embed_dim)
    model.compile(loss='binary_crossentropy',
                  optimizer=make_optimizer(args.lr),
                  metrics=['accuracy'],
                  experimental_run_tf_function=False)
    if hvd.rank() == 0:
        model.summary()

    callbacks = [
        hvd.callbacks.BroadcastGlobalVariablesCallback(0),
        hvd.callbacks.MetricAverageCallback(),
        hvd.callbacks.LearningRateWarmupCallback(initial_lr=args.lr,
                                                 warmup_epochs=args.warmup_epochs,
                                                 steps_per_epoch=steps_per_epoch,
                                                 verbose=1),
    ]
    if hvd.rank() == 0:
        os.makedirs(args.save_dir, exist_ok=True)
        callbacks.append(tf.keras.callbacks.ModelCheckpoint(
            os.path.join(args.save_dir, 'imdb-{epoch:02d}-{val_accuracy:.3f}.h5'),
            monitor='val_accuracy', save_best_only=True))

    start = time.time()
    model.fit(train_ds,
              epochs=args.epochs,
              steps_per_epoch=steps_per_epoch,
              validation_data=val_ds,
              callbacks=callbacks,
              verbose=1 if hvd.rank() == 0 else 0)

    loss, acc = model.evaluate(val_ds, verbose=0)
    if hvd.rank() == 0:
        print('Training time: %.1f min' % ((time.time() - start) / 60))
        print('Test loss: %.4f / Test accuracy: %.4f' % (loss, acc))


if __name__ == '__main__':
    main()
