"""``python -m services.bench [--quick] [--engine] [--instructions]``: run the benchmark (see
services/bench/__init__.py)."""

import sys

from services.bench.runner import main

if __name__ == "__main__":
    args = sys.argv[1:]
    main(quick="--quick" in args, engine="--engine" in args, instructions="--instructions" in args)
