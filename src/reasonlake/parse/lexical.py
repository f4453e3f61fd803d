"""Literals as written: rdflib's parsers must not rewrite lexical forms.

rdflib by default replaces a literal's lexical form with the canonical spelling of its
value (``"05"^^xsd:int`` becomes ``"5"``, ``"yes"^^xsd:boolean`` becomes ``"false"``,
``"1e400"^^xsd:double`` becomes ``"inf"``; ``" a  b "^^xsd:token`` becomes ``"a b"``). An RDF store returns the lexical form it was
given: two spellings of one value are two terms, and an ill-typed literal is data to keep,
not a value to guess. Every rdflib parse of user data runs inside ``as_written``.
"""
from __future__ import annotations

import logging
import threading
import warnings
from contextlib import contextmanager
from decimal import Decimal
from typing import Iterator

import rdflib
import rdflib.term
from rdflib.plugins.parsers import notation3

_LOCK = threading.RLock()


class _DropIllTypedWarnings(logging.Filter):
    # rdflib logs a warning with a full traceback for every ill-typed literal such as
    # "abc"^^xsd:int. Such literals are legal RDF and are kept as written, so a million-row
    # file would otherwise flood the log with noise that tells the user nothing.
    def filter(self, record: logging.LogRecord) -> bool:
        return not str(record.msg).startswith("Failed to convert Literal lexical form")


logging.getLogger("rdflib.term").addFilter(_DropIllTypedWarnings())


@contextmanager
def as_written() -> Iterator[None]:
    """rdflib keeps lexical forms while inside; the process-wide setting is restored after.

    The setting is a module global of rdflib, so parses in threads of one process take
    turns (the lock); a parse in Spark's Python workers runs in a process of its own.
    """
    with _LOCK:
        previous = rdflib.NORMALIZE_LITERALS
        rdflib.NORMALIZE_LITERALS = False
        # rdflib rewrites the whitespace of xsd:normalizedString and xsd:token lexical forms
        # whatever NORMALIZE_LITERALS says (" a  b " becomes "a b"): its two helpers, which
        # nothing but Literal() calls, leave the form alone while inside
        rewriters = {name: getattr(rdflib.term, name) for name in _WHITESPACE_REWRITERS}
        for name in _WHITESPACE_REWRITERS:
            setattr(rdflib.term, name, _as_given)
        # Turtle's numeric shorthand: rdflib reads 007, +12 and .5 as numbers and writes them
        # back as "7", "12" and "0.5"; numbers that remember their text keep the form given
        numbers = (notation3.long_type, notation3.Decimal)
        notation3.long_type, notation3.Decimal = _IntegerAsWritten, _DecimalAsWritten
        try:
            with warnings.catch_warnings():
                # "Parsing weird boolean": rdflib warns of the ill-typed literals kept here
                warnings.filterwarnings("ignore", message="Parsing weird boolean", category=UserWarning)
                yield
        finally:
            rdflib.NORMALIZE_LITERALS = previous
            for name, function in rewriters.items():
                setattr(rdflib.term, name, function)
            notation3.long_type, notation3.Decimal = numbers


_WHITESPACE_REWRITERS = ("_normalise_XSD_STRING", "_strip_and_collapse_whitespace")


def _remembering(number_type: type) -> type:
    """A number type whose values print as the text they were made from: Turtle's numeric
    shorthand read by rdflib's parser, which makes the literal from ``str`` of the number."""

    class AsWritten(number_type):
        def __new__(cls, text: str):
            number = super().__new__(cls, text)
            number.text = text
            return number

        def __str__(self) -> str:
            return self.text

    AsWritten.__name__ = f"{number_type.__name__}AsWritten"
    return AsWritten


_IntegerAsWritten = _remembering(int)
_DecimalAsWritten = _remembering(Decimal)


def _as_given(lexical_or_value):
    return lexical_or_value
