"""The home's settings: a small Delta table of (key, value) that every process and job
writing the home reads (the catalog its names go to, the folders its ontologies may come
from). Made by the first setting; a home without it has every default."""
from __future__ import annotations

from pathlib import Path

from reasonlake.engine.store import table_cache
from reasonlake.engine.store.home import Home
from reasonlake.errors import UsageError

TABLE = "settings"


def read(home: Home) -> dict[str, str]:
    """Every setting, from one read per commit of the table; {} when none was ever set."""
    path = home.path(TABLE)
    commit = table_cache.latest_commit(home.spark, path)
    if commit is None:
        return {}
    return table_cache.read(home.spark, path, ("settings",), lambda: dict(home.small_rows(TABLE, ["key", "value"])),
                            commit=commit)


def put(home: Home, values: dict[str, str]) -> None:
    """Set these keys (one commit), leaving the others as they are."""
    spark, path = home.spark, home.path(TABLE)
    spark.sql(f"CREATE TABLE IF NOT EXISTS delta.`{path}` (key STRING, value STRING) USING DELTA")
    spark.createDataFrame(sorted(values.items()), "key STRING, value STRING").createOrReplaceTempView(
        "_reasonlake_settings")
    try:
        spark.sql(f"MERGE INTO delta.`{path}` t USING _reasonlake_settings u ON t.key = u.key "
                  "WHEN MATCHED THEN UPDATE SET value = u.value WHEN NOT MATCHED THEN INSERT *")
    finally:
        spark.catalog.dropTempView("_reasonlake_settings")


ONTOLOGY_DIRS = "ontology_dirs"


def ontology_dirs(home: Home) -> tuple[str, ...]:
    """The folders besides a view file's own that its ontology files may come from."""
    return tuple(filter(None, read(home).get(ONTOLOGY_DIRS, "").split("\n")))


def allow_ontologies(home: Home, folders) -> tuple[str, ...]:
    """Make ``folders`` (made absolute) the home's allowed ontology folders; them, sorted."""
    chosen = []
    for folder in folders:
        place = Path(folder).resolve()
        if not place.is_dir():
            raise UsageError(f"--allow-ontologies {folder}: {place} is not a folder; name the folder "
                             "that holds the ontology files")
        chosen.append(str(place))
    put(home, {ONTOLOGY_DIRS: "\n".join(sorted(set(chosen)))})
    return tuple(sorted(set(chosen)))
