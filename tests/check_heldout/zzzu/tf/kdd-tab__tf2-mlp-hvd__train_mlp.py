import pandas as pd
import tensorflow as tf
import horovod.tensorflow.keras as hvd

from kddmlp.opts import get_opts
from kddmlp.prep import Prep
from kddmlp.net import mlp
from kddmlp.fit import callbacks, compile_model

opts = get_opts()
hvd.init()

gpus = tf.config.list_physical_devices('GPU')
for gpu in gpus:
    tf.config.experimental.set_memory_growth(gpu, True)
if gpus:
    tf.config.set_visible_devices(gpus[hvd.local_rank()], 'GPU')

train_df = pd.read_csv(opts.train)
test_df = pd.read_csv(opts.test)
prep = Prep().fit(train_df, opts.label_col)
X, y = prep.transform(train_df)
Xt, yt = prep.transform(test_df)

train_ds = tf.data.Dataset.from_tensor_slices((X, y)).shuffle(len(X)).batch(opts.batch_size)
test_ds = tf.data.Dataset.from_tensor_slices((Xt, yt)).batch(1024)

lr = opts.lr * hvd.size()
model = compile_model(mlp(X.shape[1], len(prep.classes), opts.hidden, opts.dropout), lr)
model.fit(train_ds, epochs=opts.epochs, validation_data=test_ds,
          callbacks=callbacks(opts, lr), verbose=1 if hvd.rank() == 0 else 0)

if hvd.rank() == 0:
    loss, acc = model.evaluate(test_ds, verbose=0)
    print(f"test loss {loss:.4f} acc {acc:.4f}")
