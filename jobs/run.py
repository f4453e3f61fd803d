"""`reasonlake run` as a job: `spark-submit jobs/run.py [--home DIR] ARGS...` or a Databricks
Python task with the same parameters."""
import sys

from reasonlake.entry import run

if __name__ == "__main__":
    code = run(["run"])
    if code:
        sys.exit(code)
