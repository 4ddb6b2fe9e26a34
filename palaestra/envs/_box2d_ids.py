"""Registers the Box2D environments (imported by :mod:`palaestra.envs`)."""
