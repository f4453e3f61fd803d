"""Commits on a view's materialization that no reasonlake writer made.

The materialization is a Delta table that other engines read, and anyone with access can
write it: a DELETE or UPDATE by hand, a RESTORE, another tool's MERGE. A slide goes on from
the table as its last close left it (it does not read the whole table again), so such a
change would be kept where nothing renews it and undone where something does: the view
would no longer be its definition over the stream, silently. So every commit a reasonlake
writer makes carries ``userMetadata`` starting with ``reasonlake`` (set on the session
while a command writes a view), and before a slide goes on, the commits after the version
its last close recorded are read (usually none: the log's latest version, no Spark job).
One that changes data without the mark stops the slide, naming the version, the operation
and the time, and pointing at ``rebuild``. Commits that change no data (OPTIMIZE, VACUUM,
table properties) are maintenance and pass; so do a crashed close's own commits. Those carry
the close they belong to (``closing``): the slide that finds them puts the table back to
before them and redoes that close (``slide``, decision 0033).
"""
from __future__ import annotations

from dataclasses import dataclass

from reasonlake.engine.store import access, table_cache
from reasonlake.engine.store.session_marks import MARK, REBUILD, SLIDE
from reasonlake.errors import CloseError, ForeignCommitError
from reasonlake.plan.durations import format_time


@dataclass(frozen=True)
class Commit:
    version: int
    operation: str
    when: int  # epoch ms
    mark: str | None
    changes_data: bool

    @property
    def foreign(self) -> bool:
        return self.changes_data and not (self.mark or "").startswith(MARK)

    @property
    def rebuilt_close(self) -> int | None:
        """The close a rebuild's commit holds (``rebuild_mark``), else None."""
        if self.mark and self.mark.startswith(REBUILD):
            return int(self.mark[len(REBUILD):])
        return None

    @property
    def slid_close(self) -> int | None:
        """The close of a slide this commit belongs to (``slide_mark``), else None."""
        if self.mark and self.mark.startswith(SLIDE):
            return int(self.mark[len(SLIDE):])
        return None


def check(spark, view: str, path: str, recorded: int, recorded_close: int | None = None) -> list[Commit]:
    """Stop (ForeignCommitError) when the table at ``path`` has a commit after version
    ``recorded`` that changes data and that no reasonlake writer made, or (CloseError) a
    rebuild's commit at another close than ``recorded_close``: a rebuild that moved the
    view back and stopped before recording it. Else the commits after ``recorded``, in
    order: reasonlake's, or maintenance."""
    commits = _after(spark, path, recorded)
    stranded = [c for c in commits if c.rebuilt_close is not None and c.rebuilt_close != recorded_close]
    if stranded:
        at = format_time(stranded[-1].rebuilt_close)
        raise CloseError(
            f"view '{view}': a rebuild at {at} published the table (version {stranded[-1].version}) but "
            f"stopped before recording that close, so the table no longer holds the view's last close"
            f"{f' ({format_time(recorded_close)})' if recorded_close is not None else ''}; run "
            f"`reasonlake rebuild {view} --at {at} --rewind` again to finish it, or "
            f"`reasonlake rebuild {view}` to materialize the last close again")
    foreign = [c for c in commits if c.foreign]
    if not foreign:
        return commits

    first = foreign[0]
    more = f" (and {len(foreign) - 1} more after it)" if len(foreign) > 1 else ""
    raise ForeignCommitError(
        f"view '{view}': its materialization was changed outside reasonlake: version {first.version}, "
        f"{first.operation} at {format_time(first.when)}{more}, after version {recorded} of its last "
        f"close. Going on from it would keep part of that change and undo the rest, so the slide "
        f"stopped. Run `reasonlake rebuild {view}` to materialize the view again from its events "
        "(the change stays readable in the table's history), then slide again. Maintenance that "
        "changes no rows (OPTIMIZE, VACUUM, table properties) is fine")


def _after(spark, path: str, recorded: int) -> list[Commit]:
    """The commits after ``recorded``, read by the home's access mode (``access``)."""
    latest = table_cache.latest_commit(spark, path)
    if latest is not None and latest[0] <= recorded:
        return []
    found = access.of(spark, path).commits(path, recorded + 1, None if latest is None else latest[0])
    return [Commit(*info) for info in found]
