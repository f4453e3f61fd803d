"""`reasonlake validate` as a job: `spark-submit jobs/validate.py [--home DIR] VIEW [--close TIME]
[--docs DIR]` or a Databricks Python task with the same parameters (fails when an expectation does)."""
import sys

from reasonlake.entry import run

if __name__ == "__main__":
    code = run(["validate"])
    if code:
        sys.exit(code)
