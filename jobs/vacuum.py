"""`reasonlake vacuum` as a job: `spark-submit jobs/vacuum.py [--home DIR] [VIEW...] [--retain D]`.
The wheel's `reasonlake-job-vacuum` (a Databricks python_wheel_task) is the same (`reasonlake.jobs`)."""
from reasonlake.jobs import vacuum

if __name__ == "__main__":
    vacuum()
