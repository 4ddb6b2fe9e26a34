"""The Box2D environments."""
