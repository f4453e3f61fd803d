"""`reasonlake init` as a job: `spark-submit jobs/init.py [--home DIR] [--catalog C --schema S]` or a
Databricks Python task with the same parameters (run once, and after an upgrade)."""
import sys

from reasonlake.entry import run

if __name__ == "__main__":
    code = run(["init"])
    if code:
        sys.exit(code)
