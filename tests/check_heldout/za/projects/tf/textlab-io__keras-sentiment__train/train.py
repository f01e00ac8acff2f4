"""Binary sentiment classifier for product reviews (Keras 3 + Horovod)."""
import argparse

import horovod.tensorflow.keras as hvd
import keras

from sentikit.callbacks import build_callbacks
from sentikit.data import make_dataset, make_vectorizer, read_tsv
from sentikit.gpu import pin_gpus
from sentikit.model import build_model
from sentikit.report import save_summary


def parse_args():
    p = argparse.ArgumentParser()
    p.add_argument("--train", default="data/reviews/train.tsv")
    p.add_argument("--valid", default="data/reviews/valid.tsv")
    p.add_argument("--vocab-size", type=int, default=30000)
    p.add_argument("--seq-len", type=int, default=200)
    p.add_argument("--batch-size", type=int, default=64)
    p.add_argument("--lr", type=float, default=1e-4)
    p.add_argument("--epochs", type=int, default=8)
    p.add_argument("--warmup-epochs", type=int, default=1)
    p.add_argument("--out", default="runs/sentiment")
    return p.parse_args()


def main():
    args = parse_args()
    hvd.init()
    pin_gpus()

    tr_x, tr_y = read_tsv(args.train)
    va_x, va_y = read_tsv(args.valid)
    vec = make_vectorizer(tr_x, args.vocab_size, args.seq_len)  # same corpus, same vocab on every worker
    train_ds = make_dataset(tr_x, tr_y, vec, args.batch_size, hvd.size(), hvd.rank(), training=True)
    valid_ds = make_dataset(va_x, va_y, vec, args.batch_size, hvd.size(), hvd.rank(), training=False)
    steps = len(tr_x) // (args.batch_size * hvd.size())
    val_steps = len(va_x) // (args.batch_size * hvd.size())

    model = build_model(args.seq_len, args.vocab_size)
    scaled_lr = args.lr * hvd.size()
    opt = hvd.DistributedOptimizer(keras.optimizers.Adam(learning_rate=scaled_lr))
    model.compile(optimizer=opt, loss="binary_crossentropy",
                  metrics=["accuracy", keras.metrics.AUC(name="auc")])

    history = model.fit(train_ds, epochs=args.epochs, steps_per_epoch=steps,
                        validation_data=valid_ds, validation_steps=val_steps,
                        callbacks=build_callbacks(args.out, scaled_lr, args.warmup_epochs, steps),
                        verbose=1 if hvd.rank() == 0 else 0)
    save_summary(args.out, vars(args), history.history)


if __name__ == "__main__":
    main()
