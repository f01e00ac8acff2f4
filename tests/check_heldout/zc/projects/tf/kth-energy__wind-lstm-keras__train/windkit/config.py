"""Defaults for the wind-power LSTM experiments (override on the command line)."""
SEQ_LEN = 144          # 24 h of 10-min SCADA samples
HORIZON = 6            # predict 1 h ahead
FEATURES = ["power", "wind_speed", "wind_dir_sin", "wind_dir_cos", "temperature"]
BATCH_SIZE = 128       # per worker
BASE_LR = 1e-3
EPOCHS = 40
WARMUP_EPOCHS = 3
CKPT_PATH = "checkpoints/wind_lstm.keras"
