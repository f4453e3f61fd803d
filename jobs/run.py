"""`reasonlake run` as a job: `spark-submit jobs/run.py [--home DIR] VIEW... --source PATH|kafka`.
The wheel's `reasonlake-job-run` (a Databricks python_wheel_task) is the same (`reasonlake.jobs`)."""
from reasonlake.jobs import run

if __name__ == "__main__":
    run()
