"""seq2seq forecasting of multichannel EEG."""
