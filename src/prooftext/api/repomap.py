"""The repository map through an index handle: the index brought up to date, then the map built from it."""

from __future__ import annotations

from prooftext.index import Index, check_flag, require_index
from prooftext.pack.repomap import MapSettings, RepositoryMap, build_map

DEFAULT_SETTINGS = MapSettings()


def repository_map(
    index: Index, settings: MapSettings = DEFAULT_SETTINGS, *, refresh: bool = True
) -> RepositoryMap:
    """A ranked outline of ``index``'s repository (files, classes, functions, sections) within
    ``settings.max_tokens``, counted exactly on the rendered text; personalized by the settings' query
    text, paths and identifiers, by graph centrality without them. Every entry names its path, its line
    range and its file's SHA-256; ``prooftext.verify`` checks a saved map (``to_dict()``) like a packet.
    ``refresh``: bring the index up to date first when files changed on disk. Files are weighed, and the
    query ranked, under the handle's ranking policy (``prooftext.open(root, ranking=...)``)."""
    require_index(index)
    check_flag("refresh", refresh)
    if refresh:
        index.ensure_fresh()
    return build_map(index.conn, index.root, settings, index.ranking)
