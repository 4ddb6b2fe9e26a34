"""Registers the functional (phys2d, tabular) environments (imported by :mod:`palaestra.envs`)."""
