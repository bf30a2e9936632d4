"""``python -m services.bench [--quick] [--engine]``: run the benchmark (see services/bench/__init__.py)."""

import sys

from services.bench.runner import main

if __name__ == "__main__":
    main(quick="--quick" in sys.argv[1:], engine="--engine" in sys.argv[1:])
