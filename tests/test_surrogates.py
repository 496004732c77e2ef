"""The release's surrogates (triage.surrogates): nothing of the original survives in its surrogate
but its shape, and a surrogate names nobody the corpus names."""

import re
import unicodedata

from hypothesis import given, settings
from hypothesis import strategies as st

from triage.surrogates import Surrogates

ACCENTED = "àâäçéèêëîïôöùûüÿÀÂÄÇÉÈÊËÎÏÔÖÙÛÜ"
LETTERS = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"


def fold(text: str) -> str:
    return "".join(c for c in unicodedata.normalize("NFKD", text.casefold()) if not unicodedata.combining(c))


def alnum(text: str) -> str:
    return "".join(c for c in fold(text) if c.isalnum())


def runs(text: str, size: int = 3) -> set[str]:
    text = alnum(text)
    return {text[i:i + size] for i in range(len(text) - size + 1)}


def shape(text: str) -> str:
    """d for a digit, A / a for an upper / lower case letter, any other character itself."""
    return "".join("d" if c.isdigit() else "A" if c.isalpha() and c.isupper() else "a" if c.isalpha() else c
                   for c in text)


# ---------------------------------------------------------------- codes


def test_a_codes_accented_letters_are_replaced_by_letters():
    surrogate = Surrogates(seed=0).replace("COD", "çàéè77")
    assert shape(surrogate) == "aaaadd"
    assert surrogate.isascii() and all(fold(a) != fold(b) for a, b in zip(surrogate, "çàéè77"))


def test_a_longer_code_does_not_reuse_a_shorter_codes_surrogate():
    surrogates = Surrogates(seed=0)
    short = surrogates.replace("COD", "A1")
    longer = surrogates.replace("COD", "AAA111")
    assert shape(longer) == "AAAddd"
    assert not longer.startswith(short) and "A111" not in longer and "111" not in longer


codes = st.text(alphabet=LETTERS + ACCENTED + "0123456789" + " -./", min_size=1, max_size=30).filter(
    lambda code: any(c.isalnum() for c in code))


@settings(max_examples=300, deadline=None)
@given(st.lists(codes, min_size=1, max_size=6), st.integers(0, 10))
def test_a_code_keeps_its_shape_and_nothing_else(originals, seed):
    surrogates = Surrogates(seed=seed)
    for original in originals:
        surrogate = surrogates.replace("COD", original)
        assert shape(surrogate) == shape(original)
        assert all(fold(a) != fold(b) for a, b in zip(surrogate, original) if a.isalnum())
        assert not runs(surrogate) & runs(original), (original, surrogate)
    for original in originals:  # one entity, one surrogate
        assert surrogates.replace("COD", original) == Surrogates(seed=seed, known=surrogates.mapping).replace(
            "COD", original)


phones = st.builds(
    lambda prefix, kind, digits, sep: prefix + sep.join([kind[0] if prefix else "0" + kind[0]]
                                                        + [digits[i:i + 2] for i in range(0, 8, 2)]),
    st.sampled_from(["", "+33 ", "0033 "]), st.sampled_from("1234567989"),
    st.text(alphabet="0123456789", min_size=8, max_size=8), st.sampled_from([" ", ".", "-", ""]))


@settings(max_examples=300, deadline=None)
@given(st.lists(phones, min_size=1, max_size=6), st.integers(0, 10))
def test_a_phone_keeps_its_kind_and_layout_and_none_of_its_digits(originals, seed):
    surrogates = Surrogates(seed=seed)
    for original in originals:
        surrogate = surrogates.replace("TEL", original)
        assert shape(surrogate) == shape(original)
        national = re.sub(r"\D", "", surrogate)[-9:]
        kind = re.sub(r"\D", "", original)[-9]
        assert national[0] == ("6" if kind in "67" else kind)  # a mobile stays a mobile, a landline a landline
        assert surrogate.startswith(re.match(r"(\+33 |0033 )?", original).group(0))  # +33 6 stays +33 6
        drawn = national[-4:]  # the fiction ranges fix the first digits: the last four are drawn
        assert all(a != b for a, b in zip(drawn, re.sub(r"\D", "", original)[-4:]))
        assert not runs(national[3:]) & runs(re.sub(r"\D", "", original)[-9:])  # the country code is no one's
