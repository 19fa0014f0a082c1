"""``python -m prooftext``: the same as the ``prooftext`` script."""

from prooftext.cli import main

main()
