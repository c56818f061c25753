"""A number with its noun, singular for one: "1 key", "2 keys", "1 unreadable bundle".

Every message that counts things says it this way, so no report, matrix or error line reads
"1 keys" or "1 runs".
"""

from __future__ import annotations


def counted(number: int, noun: str, plural: str | None = None) -> str:
    """``number`` and ``noun``, the noun plural unless the number is one.

    >>> counted(1, "key"), counted(2, "key"), counted(0, "run")
    ('1 key', '2 keys', '0 runs')
    >>> counted(1, "unreadable bundle"), counted(3, "look")
    ('1 unreadable bundle', '3 looks')
    """
    return f"{number} {noun if number == 1 else plural or noun + 's'}"
