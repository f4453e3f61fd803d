"""One writing process at a time on a home on object storage: the home's claim, committed by
delta-rs with S3's conditional put, against a real S3-API server (moto's; decision 0038).
No Spark: the claim is taken before a command's first write, by delta-rs alone."""
from __future__ import annotations

import os
import signal
import subprocess
import sys
import textwrap

import pytest

from reasonlake.engine.store import writer_claim
from reasonlake.errors import WriterBusyError
from tests.engine.store.test_object_storage import BUCKET, s3  # noqa: F401 (the S3 server fixture)

pytestmark = [pytest.mark.slow]

HOLD = textwrap.dedent("""
    import sys, time
    from reasonlake.engine.store import writer_claim
    with writer_claim.writing(sys.argv[1], "slide v"):
        print("held", flush=True)
        time.sleep(600)
""")


def test_a_second_writer_is_refused_naming_the_first_and_a_killed_one_is_taken_over(s3):  # noqa: F811
    root = f"s3a://{BUCKET}/lake"
    holder = subprocess.Popen([sys.executable, "-c", HOLD, root], stdout=subprocess.PIPE, text=True,
                              env=dict(os.environ), start_new_session=True)
    try:
        assert holder.stdout.readline().strip() == "held"
        with pytest.raises(WriterBusyError, match=rf"`slide v`, process {holder.pid} on .*one writing process at a time"):
            with writer_claim.writing(root, "ingest s"):
                pass
    finally:
        os.killpg(holder.pid, signal.SIGKILL)  # killed: no release, its claim stays in the table
        holder.wait()
    # a holder of this machine whose process is gone is taken over at once
    with writer_claim.writing(root, "ingest s"):
        with writer_claim.writing(root, "slide v"):  # nested in one process: the same claim
            pass
    # released at the end: the table holds no row
    from deltalake import DeltaTable

    from reasonlake.engine.store import object_store

    options = object_store.storage_options(object_store.settings())
    assert DeltaTable(f"{root}/_writer", storage_options=options).to_pyarrow_table().num_rows == 0
