"""`reasonlake repair` as a job: `spark-submit jobs/repair.py [--home DIR] ARGS...` or a Databricks
Python task with the same parameters."""
import sys

from reasonlake.entry import run

if __name__ == "__main__":
    code = run(["repair"])
    if code:
        sys.exit(code)
