"""An invented French SMS corpus for the team run (tests/test_team_run_browser.py): never real
messages. First names, nicknames, phone numbers, e-mails and postal addresses, and ordinary chat,
with a donor column; the same seed writes the same file."""

import csv
import random
from pathlib import Path

FIRST = ["Julie", "Kevin", "Sophie", "Nicolas", "Chloé", "Karim", "Léa", "Hugo", "Inès", "Yanis", "Manon",
         "Lucas", "Camille", "Thomas", "Sarah", "Mehdi", "Pauline", "Antoine", "Emma", "Maxime", "Clara",
         "Romain", "Laura", "Bastien", "Aurélie", "Quentin", "Océane", "Florian", "Amandine", "Jérémy"]
# First names that are also ordinary words: hidden as a name, readable as a word (consistency cases).
HOMONYMS = {"Rose": "j'ai offert une rose à maman", "Pierre": "j'ai une pierre dans ma chaussure",
            "Aurore": "levée à l'aurore pff", "Olive": "prends une olive pour l'apéro",
            "Prune": "une tarte à la prune ce soir", "Ambre": "le parfum à l'ambre sent bon",
            "Violette": "une violette a poussé dans le pot", "Marine": "une veste bleu marine",
            "Blanche": "la nappe blanche est sale", "Victoire": "une belle victoire hier soir",
            "Colombe": "une colombe sur le balcon", "Capucine": "une capucine dans le jardin"}
NICK = ["juju", "titi", "seb", "caro", "steph", "lolo", "nono", "mimi", "doudou", "fifi"]
STREETS = ["rue des Lilas", "avenue Jean Jaurès", "boulevard Victor Hugo", "rue de la Paix", "impasse des Roses",
           "rue du Moulin", "place de la Mairie", "chemin des Vignes"]
TOWNS = ["34000 Montpellier", "69003 Lyon", "75011 Paris", "31000 Toulouse", "44000 Nantes"]
DOMAINS = ["gmail.com", "hotmail.fr", "orange.fr", "free.fr", "yahoo.fr"]
CHAT = ["ok a tout a l'heure", "jarrive dans 10 min", "tkt c bon", "on mange ou ce soir ?", "bonne nuit",
        "merci pour hier c'était trop bien", "il pleut encore", "tu peux acheter du pain stp", "je suis en retard",
        "bisous a demain", "c cool ça", "le train est annulé", "on se voit samedi ?", "trop fatiguée ce soir",
        "t'as vu le match ?", "je rentre tard", "n'oublie pas les clés", "appelle moi quand tu peux",
        "le film était nul", "j'ai raté le bus", "on fait quoi ce week end", "joyeux anniversaire !!",
        "t'es où ?", "je suis chez moi", "la réunion est décalée à 15h", "ça marche", "pas de souci",
        "je t'envoie les photos", "mdr", "g fini le boulot"]


def phone(rng) -> str:
    digits = [rng.choice("67")] + [str(rng.randrange(10)) for _ in range(8)]
    number = "0" + "".join(digits)
    style = rng.randrange(3)
    if style == 0:
        return number
    if style == 1:
        return " ".join(number[i:i + 2] for i in range(0, 10, 2))
    return ".".join(number[i:i + 2] for i in range(0, 10, 2))


def email(rng) -> str:
    first = rng.choice(FIRST).lower().replace("é", "e").replace("è", "e").replace("ï", "i")
    return f"{first}.{rng.choice(['martin', 'durand', 'petit', 'moreau'])}{rng.randrange(10, 99)}@{rng.choice(DOMAINS)}"


def message(rng) -> tuple[str, list[str], list[str]]:
    """A message, the phone numbers and the e-mails it holds."""
    kind = rng.randrange(10)
    chat = rng.choice(CHAT)
    name, nick = rng.choice(FIRST), rng.choice(NICK)
    if kind == 0:
        number = phone(rng)
        return f"{rng.choice(['mon nouveau num', 'appelle au', 'voila le num'])} {number} {rng.choice(['bisous', 'a+', ''])}".strip(), [number], []
    if kind == 1:
        address = email(rng)
        return f"envoie moi ça sur {address} stp", [], [address]
    if kind == 2:
        return f"rdv au {rng.randrange(1, 80)} {rng.choice(STREETS)} {rng.choice(TOWNS)} à 20h", [], []
    if kind in (3, 4):
        return f"{rng.choice(['Salut', 'Coucou', 'Slt', 'Bonjour'])} {name} {chat}", [], []
    if kind == 5:
        return f"{chat} avec {name} et {rng.choice(FIRST)}", [], []
    if kind == 6:
        return f"slt {nick} {chat}", [], []
    if kind == 7:
        homonym = rng.choice(sorted(HOMONYMS))
        if rng.random() < 0.5:
            return f"{rng.choice(['Salut', 'Coucou', 'Bisous a'])} {homonym} {chat}", [], []
        return HOMONYMS[homonym], [], []
    return chat, [], []


def write_team_corpus(path: Path, count: int = 2000, seed: int = 2026) -> tuple[Path, list[str], list[str]]:
    """`count` invented messages with id, text and donor; returns the file, its phone numbers, its e-mails."""
    rng = random.Random(seed)
    phones, emails = [], []
    with open(path, "w", newline="", encoding="utf-8") as handle:
        writer = csv.writer(handle, delimiter=";")
        writer.writerow(["id", "text", "donor"])
        for i in range(count):
            text, numbers, addresses = message(rng)
            phones += numbers
            emails += addresses
            writer.writerow([f"m{i:05d}", text, f"donor{rng.randrange(40):02d}"])
    return path, phones, emails
