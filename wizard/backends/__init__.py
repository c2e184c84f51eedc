"""Framework backends: load, build the batch as the model sees it, forward, train steps."""
