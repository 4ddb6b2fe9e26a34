"""Registers the MuJoCo environments (imported by :mod:`palaestra.envs`)."""
