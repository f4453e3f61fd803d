"""`reasonlake vacuum` as a job: `spark-submit jobs/vacuum.py [--home DIR] [VIEW...] [--retain D]` or a
Databricks Python task with the same parameters."""
import sys

from reasonlake.entry import run

if __name__ == "__main__":
    code = run(["vacuum"])
    if code:
        sys.exit(code)
