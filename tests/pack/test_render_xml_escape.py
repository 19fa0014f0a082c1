"""The XML format escapes text and attribute values exactly as the standard library's SAX helpers do."""

from __future__ import annotations

from xml.sax.saxutils import escape as sax_escape
from xml.sax.saxutils import quoteattr as sax_quoteattr

from hypothesis import given
from hypothesis import strategies as st

from prooftext.pack.render import escape, quoteattr

XML_TEXT = st.text(alphabet=st.sampled_from("ab &<>\"'\n\r\t\u00e9"), max_size=40) | st.text(max_size=40)


@given(XML_TEXT)
def test_text_is_escaped_as_saxutils_escapes_it(text: str) -> None:
    assert escape(text) == sax_escape(text)


@given(XML_TEXT)
def test_attribute_values_are_quoted_as_saxutils_quotes_them(text: str) -> None:
    assert quoteattr(text) == sax_quoteattr(text)
