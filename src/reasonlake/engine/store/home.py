"""A lakehouse home: where the tables live, and the small registry tables around views."""
from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from reasonlake import settings
from reasonlake.declare.view import ViewDecl
from reasonlake.engine.store import access, migrations, process_cache, table_cache
from reasonlake.engine.store.inputs import is_uri
from reasonlake.engine.store.process_cache import ProcessCache
from reasonlake.errors import HomeError, UnknownViewError, ViewChangedError

if TYPE_CHECKING:  # a home is resolved before any Spark: without pyspark, the session says what to install
    from pyspark.sql import DataFrame

# A view's fingerprint while its ``view create`` runs: saved first (the rebuild reads the
# new definition from the table), replaced by the fingerprint itself once its tables match.
PENDING = "pending:"
# after PENDING: the rebuild of a changed view is recorded, its repair job is what is left
REPAIRING = "repair:"



def resolve_home(home: str | None) -> str:
    """The home's root: a URI (s3a://, abfss://, dbfs:/, file:) as given, a local path made
    absolute after checking it can be a home (a folder, or a place to make one, writable)."""
    chosen = home or settings.text("REASONLAKE_HOME") or "./lakehouse"
    if is_uri(chosen):
        return chosen.rstrip("/")
    path = Path(chosen).resolve()
    existing = next((p for p in (path, *path.parents) if p.exists()), None)
    if existing is not None and not existing.is_dir():
        raise HomeError(f"--home {chosen}: {existing} is a file, not a folder; choose a folder for the home")
    if existing is not None and not os.access(existing, os.W_OK | os.X_OK):
        raise HomeError(f"--home {chosen}: {existing} is not writable; choose a folder you can write to")
    return str(path)


@dataclass
class Home:
    spark: object
    root: str
    # Set once require_init passed: migrations only ever get applied, never undone, so a
    # home found current stays current for this process (saves two Delta reads per call).
    ready: bool = field(default=False, repr=False, compare=False)
    # Seconds a command that writes a view waits for another writer's lease (engine.lease).
    writer_wait: float = field(default=0.0, repr=False, compare=False)

    @property
    def cache(self) -> ProcessCache:
        """What this process keeps warm for the session (compiled views, facts in the
        driver, answers from small tables); ``home.cache.clear()`` drops it."""
        return process_cache.of(self.spark)

    @property
    def access(self):
        """How this process reaches the home's tables (``access``: one mode for the home and
        the session, chosen on first use)."""
        return access.of(self.spark, self.root)

    def path(self, table: str) -> str:
        return f"{self.root}/{table}"

    def table(self, name: str) -> DataFrame:
        return self.spark.read.format("delta").load(self.path(name))

    def small_rows(self, name: str, columns: list[str], where: tuple[str, object] | None = None) -> list:
        """A small system table's rows (``columns`` of them; with ``where`` = (column, value),
        those whose column holds value): read by the home's access mode where it reads the
        files itself (a local folder: no Spark job), else through Spark."""
        # imported when called: it loads pyspark (the JVM)
        from pyspark.sql import functions as F

        found = self.access.rows(self.path(name), columns)
        if found is not None:
            return found if where is None else [r for r in found if r[where[0]] == where[1]]
        table = self.table(name) if where is None else self.table(name).where(F.col(where[0]) == where[1])
        return table.select(*columns).collect()

    def sql_name(self, table: str) -> str:
        return f"delta.`{self.path(table)}`"

    def mat_path(self, view: str) -> str:
        return self.path(f"mat_{view}")

    def removed_path(self, view: str) -> str:
        """A repair view's tombstones (``removed_<view>``)."""
        return self.path(f"removed_{view}")

    def repairs_path(self, view: str) -> str:
        """A repair view's repair log (``repairs_<view>``)."""
        return self.path(f"repairs_{view}")

    # -- set-up ---------------------------------------------------------------------------
    def init(self) -> list[str]:
        return migrations.apply_pending(self.spark, self.root)

    def require_init(self) -> None:
        if self.ready:
            return
        # One read of the migrations log answers both questions (is this a home, is it
        # current): in a fresh process each Delta read of a table costs seconds.
        applied = self._applied()
        if applied is None:
            raise HomeError(f"{self.root} is not a reasonlake home yet; run `reasonlake init` first")
        pending = [file.name for v, file in migrations.available() if v not in applied]
        if pending:
            raise HomeError(
                f"{self.root} needs migrations {', '.join(pending)}; "
                "run `reasonlake init`"
            )
        self.ready = True

    def _applied(self) -> set[int] | None:
        """The versions of the applied migrations; None where there is no migrations log."""
        # imported when called: it loads pyspark (the JVM)
        from pyspark.errors import AnalysisException

        try:
            return {r.version for r in self.small_rows("_migrations", ["version"])}
        except FileNotFoundError:
            return None
        except AnalysisException as exc:
            if "PATH_NOT_FOUND" in str(exc) or "DELTA_MISSING_DELTA_TABLE" in str(exc) or \
                    "is not a Delta table" in str(exc):
                return None
            raise

    # -- views ----------------------------------------------------------------------------
    def view(self, name: str) -> ViewDecl:
        return ViewDecl.from_json(self._view_row(name).definition)

    def require_created(self, name: str) -> None:
        """Stop a command that would go on from a view whose ``view create`` stopped half-way
        (its definition saved, its tables not yet made or rebuilt to match)."""
        if self._view_row(name).fingerprint.startswith(PENDING):
            raise ViewChangedError(
                f"view '{name}': its last `view create` stopped before it finished (the new definition "
                "is saved, its tables are not made to match yet); run the same `reasonlake view create` "
                "again to finish it")

    def _view_row(self, name: str):
        row = self._registry().get(name)
        if row is None:
            known = sorted(self._registry())
            hint = f"known views: {', '.join(known)}" if known else "no view exists yet"
            raise UnknownViewError(
                f"unknown view '{name}' ({hint}); create it with `reasonlake view create FILE.yaml`"
            )
        return row

    def _registry(self) -> dict:
        """Every view's row (name, definition, fingerprint) by name, from one read of the
        registry however many questions a command asks of it (a few rows: one per view)."""
        return table_cache.read(
            self.spark, self.path("views"), ("registry",),
            lambda: {r.name: r for r in self.small_rows("views", ["name", "definition", "fingerprint"])})

    def view_names(self) -> list[str]:
        return sorted(self._registry())

    def streams_read(self) -> list[str]:
        """The streams the views read, from one read of the registry."""
        return sorted({ViewDecl.from_json(r.definition).stream for r in self._registry().values()})
