"""`reasonlake rebuild` as a job: `spark-submit jobs/rebuild.py [--home DIR] VIEW [--at TIME]`.
The wheel's `reasonlake-job-rebuild` (a Databricks python_wheel_task) is the same (`reasonlake.jobs`)."""
from reasonlake.jobs import rebuild

if __name__ == "__main__":
    rebuild()
