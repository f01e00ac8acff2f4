"""Monthly Arctic sea-ice concentration forecasting (ConvLSTM)."""
