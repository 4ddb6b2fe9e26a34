"""The base layer of :mod:`palaestra.train`: what every algorithm is built on.

- :mod:`~palaestra.train.core.registry`: the algorithms by name (no torch needed to read);
- :mod:`~palaestra.train.core.config`: :class:`~palaestra.train.core.config.CommonConfig`,
  the shared hyper-parameters, documented and validated once;
- :mod:`~palaestra.train.core.agent`: :class:`~palaestra.train.core.agent.Agent`, the
  skeleton (env set-up, seeding, device, episode tracking, the learn loop, save and load,
  predict);
- :mod:`~palaestra.train.core.backend`: choosing and reporting the gradient backend under
  an algorithm's loss;
- :mod:`~palaestra.train.core.optim`: Adam, gradient clipping and flat gradients;
- :mod:`~palaestra.train.core.setup` and :mod:`~palaestra.train.core.predict`: config,
  device and seed resolution; acting on one observation or a batch.

Modules of ``core`` import nothing of ``palaestra.train`` above them (the algorithms, the
runner); ``tests/test_import_cycles.py`` checks it. Importing this package imports none
of its modules (the registry is cheap; the rest needs torch).
"""
