"""Conversation context: items, the token-ledgered pipeline, health, the surfacing pre-pass and the turn
planner.

This package never imports ``prooftext.memory``: memory comes in as plain items of kind ``memory``.
"""
