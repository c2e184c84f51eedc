"""hf-debug-wizard: the checks an expert runs by hand when fine-tuning breaks, run for you."""
__version__ = "0.1.0"
