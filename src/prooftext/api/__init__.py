"""What the command line, JSON-RPC and MCP share above the core: depth and memory (:mod:`.memory`),
conversation turns (:mod:`.turns`) and the risk of changing (:mod:`.risk`).

Each composes core calls and holds no wire concerns (no transport, no error formatting); the public door
re-exports what the adapters use.
"""
