"""`reasonlake repair` as a job: `spark-submit jobs/repair.py [--home DIR] VIEW`.
The wheel's `reasonlake-job-repair` (a Databricks python_wheel_task) is the same (`reasonlake.jobs`)."""
from reasonlake.jobs import repair

if __name__ == "__main__":
    repair()
