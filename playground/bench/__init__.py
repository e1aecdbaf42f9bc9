"""Benchmarks behind `playground bench`: every peer measured in the same run on the same bytes."""
