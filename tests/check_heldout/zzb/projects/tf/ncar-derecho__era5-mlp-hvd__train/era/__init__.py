"""ERA5 column emulator helpers."""
