"""Real, well-known facts (TriviaQA style) with short articles on the local encyclopedia.

The DirectNavigation env's fictional landmarks can only be answered by looking them up; these questions can also be
answered from memory, as in the paper (where models often answered trivia directly).  Each fact has a question, its
answer (the string an answer must contain) and an Openpedia article that states it, so browsing agents can verify.
The facts are general knowledge, written here in our own words.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache


@dataclass(frozen=True)
class RealFact:
    """A question about a real subject, its answer and the article paragraph that states it."""

    title: str
    question: str
    answer: str
    paragraph: str
    category: str

    @property
    def slug(self) -> str:
        """The article path component (``Title_With_Underscores``)."""
        return self.title.replace(" ", "_")


_FACTS: tuple[tuple[str, str, str, str, str], ...] = (
    ("Eiffel Tower", "In what year was the Eiffel Tower completed?", "1889",
     "The Eiffel Tower is a wrought-iron lattice tower in Paris, France. It was completed in 1889 for the World's "
     "Fair.", "year"),
    ("Pride and Prejudice", "Who wrote the novel Pride and Prejudice?", "Jane Austen",
     "Pride and Prejudice is an 1813 novel of manners written by Jane Austen.", "person"),
    ("Apollo 11", "In what year did Apollo 11 land on the Moon?", "1969",
     "Apollo 11 was the first crewed mission to land on the Moon, in July 1969.", "year"),
    ("Gold", "What is the chemical symbol of gold?", "Au",
     "Gold is a chemical element with the symbol Au (from the Latin aurum).", "science"),
    ("Australia", "What is the capital city of Australia?", "Canberra",
     "Australia is a country in the Southern Hemisphere. Its capital city is Canberra; its largest city is "
     "Sydney.", "place"),
    ("Mona Lisa", "Who painted the Mona Lisa?", "Leonardo da Vinci",
     "The Mona Lisa is a half-length portrait painted by the Italian artist Leonardo da Vinci.", "person"),
    ("Jupiter", "What is the largest planet in the Solar System?", "Jupiter",
     "Jupiter is the fifth planet from the Sun and the largest planet in the Solar System.", "science"),
    ("Pacific Ocean", "What is the largest ocean on Earth?", "Pacific",
     "The Pacific Ocean is the largest and deepest of Earth's oceans.", "place"),
    ("Romeo and Juliet", "Who wrote the play Romeo and Juliet?", "Shakespeare",
     "Romeo and Juliet is a tragedy written by William Shakespeare early in his career.", "person"),
    ("Penicillin", "Which scientist discovered penicillin in 1928?", "Alexander Fleming",
     "Penicillin was discovered in 1928 by the Scottish scientist Alexander Fleming.", "person"),
    ("Berlin Wall", "In what year did the Berlin Wall fall?", "1989",
     "The Berlin Wall divided Berlin from 1961 until it fell in November 1989.", "year"),
    ("Nile", "What is the longest river in Africa?", "Nile",
     "The Nile is a river in northeastern Africa and the longest river on the continent.", "place"),
    ("Telephone", "Who was awarded the first US patent for the telephone in 1876?", "Alexander Graham Bell",
     "Alexander Graham Bell was awarded the first United States patent for the telephone in 1876.", "person"),
    ("Theory of relativity", "Which physicist developed the theory of relativity?", "Einstein",
     "The theory of relativity comprises two theories developed by Albert Einstein.", "person"),
    ("Titanic", "In what year did the RMS Titanic sink?", "1912",
     "RMS Titanic was a British passenger liner that sank in the North Atlantic in April 1912.", "year"),
    ("Great Wall of China", "In which country is the Great Wall?", "China",
     "The Great Wall of China is a series of fortifications built across the historical northern borders of "
     "China.", "place"),
    ("Japan", "What is the capital city of Japan?", "Tokyo",
     "Japan is an island country in East Asia. Its capital and largest city is Tokyo.", "place"),
    ("The Magic Flute", "Who composed the opera The Magic Flute?", "Mozart",
     "The Magic Flute is an opera composed by Wolfgang Amadeus Mozart, first performed in 1791.", "person"),
    ("Statue of Liberty", "Which country gave the Statue of Liberty to the United States?", "France",
     "The Statue of Liberty was a gift from the people of France to the United States, dedicated in 1886.",
     "place"),
    ("World War II", "In what year did World War II end?", "1945",
     "World War II was a global conflict that lasted from 1939 to 1945.", "year"),
    ("The Starry Night", "Who painted The Starry Night?", "Van Gogh",
     "The Starry Night is an oil-on-canvas painting by the Dutch painter Vincent van Gogh, made in 1889.",
     "person"),
    ("Mars", "Which planet is known as the Red Planet?", "Mars",
     "Mars is the fourth planet from the Sun; iron oxide on its surface gives it the name the Red Planet.",
     "science"),
    ("Amazon River", "On which continent does the Amazon River flow?", "South America",
     "The Amazon River in South America is the largest river in the world by discharge volume.", "place"),
    ("Harry Potter", "Who wrote the Harry Potter novels?", "Rowling",
     "Harry Potter is a series of seven fantasy novels written by the British author J. K. Rowling.", "person"),
    ("Canada", "What is the capital city of Canada?", "Ottawa",
     "Canada is a country in North America. Its capital is Ottawa and its largest city is Toronto.", "place"),
    ("Sahara", "What is the largest hot desert in the world?", "Sahara",
     "The Sahara is a desert in North Africa and the largest hot desert in the world.", "place"),
    ("Hamlet", "In which country is Shakespeare's play Hamlet set?", "Denmark",
     "Hamlet is a tragedy by William Shakespeare, set in Denmark.", "place"),
    ("Light bulb", "Which inventor's company developed the first commercially practical incandescent light bulb "
     "in 1879?", "Edison",
     "Thomas Edison and his team developed a commercially practical incandescent light bulb in 1879.", "person"),
    ("Mount Everest", "In which mountain range is Mount Everest?", "Himalaya",
     "Mount Everest is Earth's highest mountain above sea level, located in the Mahalangur Himal sub-range of the "
     "Himalayas.", "place"),
    ("Moon landing astronaut", "Who was the first person to walk on the Moon?", "Neil Armstrong",
     "Neil Armstrong was an American astronaut and the first person to walk on the Moon, in 1969.", "person"),
)


@lru_cache(maxsize=1)
def real_facts() -> tuple[RealFact, ...]:
    """The thirty real facts, in a fixed order."""
    return tuple(RealFact(title, question, answer, paragraph, category)
                 for title, question, answer, paragraph, category in _FACTS)


def fact_by_slug(slug: str) -> RealFact | None:
    """The fact whose article has this slug (case-insensitive), or ``None``."""
    wanted = slug.replace(" ", "_").lower()
    return next((fact for fact in real_facts() if fact.slug.lower() == wanted), None)
