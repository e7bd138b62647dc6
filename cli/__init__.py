"""The ``spycfr`` command line: thin click commands over the ``solver`` library."""
