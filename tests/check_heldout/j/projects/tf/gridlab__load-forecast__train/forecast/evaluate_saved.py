"""``load-forecast evaluate``: score a saved model on the hold-out days (one process, no Horovod)."""
import numpy as np
from tensorflow import keras

from .windows import load_series, make_windows


def main(args, holdout_days=365, history=168, horizon=24):
    load, calendar, temp = load_series(args.data)
    x, y, (mu, sd) = make_windows(load, calendar, temp, history, horizon)
    model = keras.models.load_model(args.model)
    pred = model.predict(x[-holdout_days:], batch_size=1024, verbose=0) * sd + mu
    truth = y[-holdout_days:] * sd + mu
    mape = np.mean(np.abs(pred - truth) / truth, axis=0) * 100
    for h in (1, 6, 12, 24):
        if h <= horizon:
            print(f"t+{h:2d}h MAPE {mape[h - 1]:.2f}%")
    return 0
