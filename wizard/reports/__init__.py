"""Evidence to report: environment, reproduction scripts, plots, rendered reports."""
