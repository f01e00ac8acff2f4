"""Defaults for the station nowcasting model. Override with environment variables NOWCAST_<NAME>."""
import os

STATIONS_CSV = os.environ.get("NOWCAST_STATIONS_CSV", "data/stations_10min.csv")
FEATURES = ["temp", "rh", "pressure", "wind_u", "wind_v", "precip"]
TARGET = "temp"
INPUT_STEPS = int(os.environ.get("NOWCAST_INPUT_STEPS", 144))     # 24 h of 10-min samples
OUTPUT_STEPS = int(os.environ.get("NOWCAST_OUTPUT_STEPS", 36))    # 6 h ahead
BATCH_SIZE = int(os.environ.get("NOWCAST_BATCH_SIZE", 128))       # per worker
BASE_LR = float(os.environ.get("NOWCAST_BASE_LR", 1e-3))
EPOCHS = int(os.environ.get("NOWCAST_EPOCHS", 40))
WARMUP_EPOCHS = 3
PATIENCE = 6
VAL_FRACTION = 0.2
OUT_DIR = os.environ.get("NOWCAST_OUT_DIR", "artifacts")
