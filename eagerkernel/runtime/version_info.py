"""The package version, in a leaf module that the runtime and the top-level package read
(``ek.__version__``, ``ek.version.VERSION``, ``ek.keras.__version__``)."""

VERSION = "0.1.0"
