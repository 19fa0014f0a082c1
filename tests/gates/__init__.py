"""The context integrity gate (``PYTHONPATH=tests python -m gates.context``), its fixture and its tests."""
