"""pumpae: convolutional autoencoder for pump vibration anomaly detection."""
__version__ = "0.3.1"
