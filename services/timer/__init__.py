"""The timer process: timeouts for the seats whose clocks ran out (see timer.py)."""
