"""Tests of the generic rules-layer facilities a game's core builds on (services/rules/)."""
