"""Servers: one JSON-RPC 2.0 dispatcher (stdio and HTTP transports) and an MCP server, adapters only.

``dispatcher`` parses, validates and answers; ``methods`` is the method table over the Python API;
``runner`` bounds concurrency and deadlines; ``stdio`` and ``http`` are the transports; ``mcp_server``
exposes the same methods as MCP tools; ``app`` wires a root to a transport. Nothing here decides anything
the core decides.
"""
