"""Where the IDX data sets are looked for: an explicit directory, $EAGERKERNEL_DATA, Debian.

Nothing is downloaded: a data set that is in none of these places is an error that lists
every place and says how to install it.
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Sequence
from pathlib import Path

ENV_VAR = "EAGERKERNEL_DATA"


def candidate_dirs(
    path: str | os.PathLike | None, subdirs: Sequence[str], debian_dirs: Iterable[str]
) -> list[Path]:
    """The directories to try, in order: ``path``, ``$EAGERKERNEL_DATA/<subdir>`` for each
    name in ``subdirs``, then ``debian_dirs``. Duplicates are dropped, the first kept."""
    dirs: list[Path] = []
    if path is not None:
        dirs.append(Path(path).expanduser())
    root = os.environ.get(ENV_VAR)
    if root:
        dirs.extend(Path(root).expanduser() / name for name in subdirs)
    dirs.extend(Path(d) for d in debian_dirs)
    return list(dict.fromkeys(dirs))


def find_files(
    dataset: str, stems: Sequence[str], dirs: Sequence[Path], how_to_install: str
) -> dict[str, Path]:
    """Each stem's file in the first of ``dirs`` that holds all of them.

    A stem ``train-images-idx3-ubyte`` matches that file or ``train-images-idx3-ubyte.gz``
    (the plain one first: it needs no decompressing). A directory that holds only some of the
    files is passed over, and named in the error if no later one holds them all.

    Raises:
      FileNotFoundError: no directory holds every file; the message lists each directory
        with what it lacked, notes an unset $EAGERKERNEL_DATA, then adds ``how_to_install``.
    """
    looked: list[str] = []
    for d in dirs:
        if not d.is_dir():
            looked.append(f"  {d}: no such directory")
            continue
        found: dict[str, Path] = {}
        for stem in stems:
            for name in (stem, stem + ".gz"):
                if (d / name).is_file():
                    found[stem] = d / name
                    break
        missing = [s for s in stems if s not in found]
        if not missing:
            return found
        looked.append(f"  {d}: missing {', '.join(s + '[.gz]' for s in missing)}")
    if not os.environ.get(ENV_VAR):
        looked.append(f"  ${ENV_VAR}: not set")
    raise FileNotFoundError(
        f"{dataset} not found (nothing is downloaded). Looked in:\n"
        + "\n".join(looked)
        + f"\n{how_to_install}"
    )
