"""Items and thread names."""

from __future__ import annotations

import pytest

from prooftext.conversation.items import check_thread
from prooftext.errors import RequestError


@pytest.mark.parametrize("name", ["main\n", "garden.2\n"])
def test_a_thread_name_with_a_trailing_line_feed_is_refused(name: str) -> None:
    assert check_thread(name.rstrip("\n")) == name.rstrip("\n")
    with pytest.raises(RequestError) as caught:
        check_thread(name)
    assert caught.value.field == "thread"
