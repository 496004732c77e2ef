import pytest

from triage.tokenise import DETECTED, EMOJI, EMOTICON, NUMBER, PUNCT, WORD, tokenise


def kinds(text, **kw):
    return [(t.text, t.kind) for t in tokenise(text, **kw)]


def test_punctuation_glued_to_a_word_is_split_off():
    assert kinds("Coucou Patrice, ça va?") == [
        ("Coucou", WORD), ("Patrice", WORD), (",", PUNCT), ("ça", WORD), ("va", WORD), ("?", PUNCT),
    ]


def test_elided_clitics_are_separated_unless_the_whole_is_a_word():
    assert kinds("j'arrive qu'il t’appelle") == [
        ("j'", WORD), ("arrive", WORD), ("qu'", WORD), ("il", WORD), ("t’", WORD), ("appelle", WORD),
    ]
    assert kinds("aujourd'hui", keep_whole={"aujourd'hui"}) == [("aujourd'hui", WORD)]
    assert kinds("c'est-à-dire") == [("c'", WORD), ("est-à-dire", WORD)]


def test_urls_emails_and_phone_numbers_stay_whole():
    text = "appelle au 06 12 34 56 78 ou julie.martin@example.fr, voir https://example.org/a?b=1."
    detected = [(t.text, t.tag) for t in tokenise(text) if t.kind == DETECTED]
    assert detected == [
        ("06 12 34 56 78", "TEL"), ("julie.martin@example.fr", "MEL"), ("https://example.org/a?b=1", "URL"),
    ]


@pytest.mark.parametrize("emoticon", [":-)", ";)", ":D", ":p", "<3", "^^", "xD", ":'(", "-_-"])
def test_emoticons_stay_whole(emoticon):
    assert kinds(f"ok {emoticon} a+") [1] == (emoticon, EMOTICON)


def test_numbers_emoji_and_sms_rebus_words():
    assert kinds("rdv 18h30 2m1 😀😀") == [("rdv", WORD), ("18h30", NUMBER), ("2m1", WORD), ("😀😀", EMOJI)]


def test_offsets_point_back_into_the_text():
    text = "Slt!! t'es ou? jsuis chez Léna-Dav 😘 06.12.34.56.78"
    for token in tokenise(text):
        assert text[token.start : token.end] == token.text
