"""Validation gates: executable checks that print one ``PASS:`` line on success."""
