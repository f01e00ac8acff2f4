from rfcast import flags
from rfcast.dist import init, chief
from rfcast.features import load, encoders, encode
from rfcast.model import EmbeddingRegressor
from rfcast.loop import Loop

import tensorflow as tf


def main():
    args = flags.parse()
    rank, size = init()

    train_df, valid_df = load(args.train_csv, args.valid_days)
    enc = encoders(train_df)
    x, y = encode(train_df, enc)
    xv, yv = encode(valid_df, enc)

    dims = {k: int(v) for k, v in (kv.split(":") for kv in args.emb_dims.split(","))}
    model = EmbeddingRegressor({c: len(enc[c]) for c in enc}, dims)
    opt = tf.keras.optimizers.Adam(learning_rate=args.lr * size)

    best = Loop(model, opt, args).run(x, y, xv, yv)
    if chief():
        print("best valid RMSLE", best)
        for c, layer in model.embs.items():
            w = layer.get_weights()[0]
            print(c, "embedding norm", float((w ** 2).sum() ** 0.5))


if __name__ == "__main__":
    main()
