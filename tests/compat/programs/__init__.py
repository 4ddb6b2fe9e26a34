"""Programs written for the real Gymnasium, run on palaestra by ``python -m palaestra.compat``."""
