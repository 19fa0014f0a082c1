"""prooftext."""
