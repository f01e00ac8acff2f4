from .devices import configure_devices
from .nets import two_stream_model
