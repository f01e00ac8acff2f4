"""Disruption prediction from 0D plasma signals (LSTM, multi-task: disrupt/no-disrupt + time to disruption)."""
