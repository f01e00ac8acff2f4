"""formsense: field-level OCR for scanned forms (Keras 3, TF backend)."""
