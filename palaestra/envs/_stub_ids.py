"""Registers the stub ids of third-party suites (mujoco-py v2/v3, shimmy)."""
