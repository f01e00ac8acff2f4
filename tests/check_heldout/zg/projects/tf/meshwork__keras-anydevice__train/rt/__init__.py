"""Run-time helpers: pick a device, build data and callbacks for single or multi-worker runs."""
