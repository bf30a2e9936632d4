"""Prometheus metrics of every throne process.

* :mod:`services.metrics.catalog`: the counters and histograms the processes update as they work (imports only
  the client library, so the bus and the store may use it);
* :mod:`services.metrics.collectors` and :mod:`services.metrics.roles`: what is computed when Prometheus scrapes
  (pending entries and lag of consumer groups, dead letters stored, alarms due, open feeds, in-memory tallies);
* :mod:`services.metrics.endpoint`: the ``--metrics-port``/``--metrics-host`` options, the ``/metrics`` server,
  and the ports ``throne serve`` gives its children.
"""
