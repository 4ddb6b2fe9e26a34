"""Registers the toy-text environments (imported by :mod:`palaestra.envs`)."""
