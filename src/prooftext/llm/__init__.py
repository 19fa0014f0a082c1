"""LLM backends (Ollama native, OpenAI-compatible) over httpx, the chat message shape and the shape-only
signal report. Nothing is re-exported here: the message shape is read by the conversation side, which must
not pay for importing httpx."""
